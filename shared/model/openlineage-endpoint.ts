import * as z from 'zod';

/**
 * A tenant's OpenLineage endpoint, set by a platform admin (docs/lineage.md): where that
 * tenant's run events go instead of the stage's OPENLINEAGE_URL.
 */
export const OpenLineageEndpointRequest = z
  .strictObject({
    // An absolute http(s) URL in the document as at run time (the guard checks the rest when it is set).
    url: z
      .url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' })
      .max(2048)
      .nullable()
      .describe(
        'https URL the tenant’s run events are POSTed to (http only to a host the outbound allow-list names); no credentials, query or fragment, no loopback, private or metadata host; null: the stage’s endpoint again',
      ),
  })
  .meta({ id: 'OpenLineageEndpointRequest' });

export const OpenLineageEndpointResponse = z
  .object({
    tenant_id: z.string(),
    url: z.string().nullable().describe('The tenant’s own endpoint; null when it has none'),
    uses: z
      .enum(['tenant', 'stage', 'none'])
      .describe('Where the tenant’s events go: its own endpoint, the stage’s (never shown), or nowhere'),
  })
  .meta({ id: 'OpenLineageEndpoint' });

export type OpenLineageEndpointRequest = z.output<typeof OpenLineageEndpointRequest>;
export type OpenLineageEndpointResponse = z.input<typeof OpenLineageEndpointResponse>;
