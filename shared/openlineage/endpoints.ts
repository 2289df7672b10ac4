import * as z from 'zod';
import { config } from '../config';
import { PlatformRecords } from '../db/platform-records';
import type { OpenLineageEndpointResponse } from '../model/openlineage-endpoint';

/**
 * Per-tenant OpenLineage endpoints (docs/lineage.md): a platform admin may send a tenant's run
 * events to the tenant's own server instead of the stage's OPENLINEAGE_URL. This module only
 * stores and reads them, so that every API route can tell where a tenant's events go without
 * carrying the outbound guard: the URL is checked when an admin writes it and every event to
 * it goes through the guard, both in guarded-delivery.ts, which only the admin route and the
 * job workers load (docs/decisions.md).
 */

const EndpointRecord = z.object({ tenant_id: z.string(), url: z.string() });
const endpoints = new PlatformRecords('OPENLINEAGE_ENDPOINT', EndpointRecord);

/** Where a tenant's events go: its own URL (only through the outbound guard), or the stage's. */
export interface EventEndpoint {
  readonly url: string;
  readonly own: boolean;
}

/**
 * The tenant's own URL, read at each event: a few a job, and a change applies to the next
 * event (no cache, which every route that can end a job would carry).
 */
async function tenantUrl(tenantId: string): Promise<string | undefined> {
  return (await endpoints.find(tenantId))?.url;
}

/** Where the tenant's events go now, on a stage that sets OPENLINEAGE_URL (where the `openlineage` toggle is available). */
export async function endpointOf(tenantId: string): Promise<EventEndpoint> {
  const own = await tenantUrl(tenantId);
  return own === undefined ? { url: config.openLineage.url, own: false } : { url: own, own: true };
}

/** The tenant's endpoint as an admin sees it: its own URL, and which endpoint is used (never the stage's URL). */
export async function endpointView(tenantId: string): Promise<OpenLineageEndpointResponse> {
  const own = await tenantUrl(tenantId);
  const uses = own !== undefined ? 'tenant' : config.openLineage.url === '' ? 'none' : 'stage';
  return { tenant_id: tenantId, url: own ?? null, uses };
}

/**
 * Stores (or with null, removes) the tenant's own endpoint. The caller has checked the URL
 * (guarded-delivery.ts checkEndpointUrl): this module does not carry the guard.
 */
export async function storeEndpoint(tenantId: string, url: URL | null): Promise<void> {
  if (url === null) await endpoints.remove(tenantId);
  else await endpoints.put(tenantId, { tenant_id: tenantId, url: url.href });
}
