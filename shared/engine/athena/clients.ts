import { GlueClient } from '@aws-sdk/client-glue';
import { perStores } from '../../aws/per-stores';
import { traceClient } from '../../observability/tracing';

/**
 * The Glue client of the cancel route (cancelled-run.ts), with the route's own role, made on
 * first use. A run's Athena and Glue calls use the tenant's role instead (tenant-role.ts
 * tenantClients). The endpoint comes from the SDK's configuration (AWS_ENDPOINT_URL_GLUE): the
 * twin points it at its stand-in (infra/local/glue.ts).
 */
export const glueClient = perStores(
  () => traceClient(new GlueClient({})),
  (client) => client.destroy(),
);
