import { BigQuery, type BigQueryOptions } from '@google-cloud/bigquery';
import { config } from '../../config';
import { googleAccessToken, type GoogleCredentials } from '../cloud/token';
import { assertConfiguredDestination } from '../outbound-http';

/**
 * Read-only for a connection test and a table's import, which only read datasets and tables;
 * a view's import runs a query job (view-query.ts), which the read-only scope does not allow.
 */
const SCOPES = {
  read: 'https://www.googleapis.com/auth/bigquery.readonly',
  query: 'https://www.googleapis.com/auth/bigquery',
} as const;

export interface AnalyticsDbSession {
  readonly bigquery: BigQuery;
  /** The project datasets are read in: the key's, or the workload identity connection's. */
  readonly projectId: string;
}

/**
 * A BigQuery client for a connection: the access token is obtained first (cloud/token.ts:
 * through the outbound guard, bounded), and the client sends it as a bearer header. Requests
 * go to BIGQUERY_API_ENDPOINT, which this deployment configures and no user names, so it is
 * checked by address before the client is built (the SDK's transport takes no agent); each
 * request is bounded by the connector timeout and made once.
 */
export async function openAnalyticsDb(
  credentials: GoogleCredentials,
  timeoutMs: number,
  access: keyof typeof SCOPES = 'read',
): Promise<AnalyticsDbSession> {
  const endpoint = config.bigqueryApiEndpoint.replace(/\/+$/, '');
  await assertConfiguredDestination(new URL(endpoint));
  const token = await googleAccessToken(credentials, { scope: SCOPES[access], timeoutMs, keyErrorCode: '30-1415' });
  const authorization = `Bearer ${token.accessToken}`;
  // Service reads a client-wide `timeout` its options type omits (a named object carries it);
  // teeny-request hands it to node-fetch 3, which ignores it, hence `bounded` below as well.
  const options: BigQueryOptions & { readonly timeout: number } = {
    timeout: timeoutMs,
    apiEndpoint: endpoint,
    projectId: token.projectId,
    authClient: bearerClient(authorization, token.projectId),
    autoRetry: false,
    maxRetries: 0,
  };
  const bigquery = new BigQuery(options);
  return { bigquery, projectId: token.projectId };
}

type BigQueryAuthClient = NonNullable<BigQueryOptions['authClient']>;

/**
 * The auth client the SDK is given: a fixed bearer token, sent through getRequestHeaders. Its
 * declared type is the SDK's own copy of google-auth-library's class, which this code cannot
 * import; the object provides the members the SDK uses, hence the one cast.
 */
function bearerClient(authorization: string, projectId: string): BigQueryAuthClient {
  const client = {
    projectId,
    universeDomain: 'googleapis.com',
    getProjectId: async (): Promise<string> => projectId,
    getRequestHeaders: async (): Promise<Record<string, string>> => ({ Authorization: authorization }),
  };
  return client as unknown as BigQueryAuthClient;
}

/**
 * Bounds a call of the SDK by the connector timeout: its transport (teeny-request over
 * node-fetch 3) takes neither a timeout nor a signal, so a silent server would hold the call
 * forever. The request itself is left to end with its socket; the caller gets a TimeoutError,
 * or the signal's reason when `signal` aborts first (a stopped job).
 */
export async function bounded<T>(call: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    onAbort = () => reject(signal?.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([call, expiry]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
