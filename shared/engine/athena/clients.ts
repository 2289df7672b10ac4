import { AthenaClient } from '@aws-sdk/client-athena';
import { GlueClient } from '@aws-sdk/client-glue';
import { perStores } from '../../aws/per-stores';
import { traceClient } from '../../observability/tracing';

/**
 * The Athena and Glue clients of trino-sql runs, made on first use (only recipe-run workers
 * load them). Endpoints come from the SDK's configuration (AWS_ENDPOINT_URL_ATHENA,
 * AWS_ENDPOINT_URL_GLUE): the twin points them at its stand-ins (infra/local/athena.ts, glue.ts).
 */
export const athenaClient = perStores(
  () => traceClient(new AthenaClient({})),
  (client) => client.destroy(),
);

export const glueClient = perStores(
  () => traceClient(new GlueClient({})),
  (client) => client.destroy(),
);
