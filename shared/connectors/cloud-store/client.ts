import { Storage, type StorageOptions } from '@google-cloud/storage';
import { request as gaxiosRequest, type GaxiosOptions, type GaxiosResponse } from 'gaxios';
import { config } from '../../config';
import { googleAccessToken, type GoogleCredentials } from '../cloud/token';
import { assertDestinationAllowed } from '../outbound-guard';
import { assertConfiguredDestination, guardedAgent } from '../outbound-http';

/** Read for imports and browsing, write for exports; what the account may do is its IAM roles' business. */
const SERVICE_ACCOUNT_SCOPE = 'https://www.googleapis.com/auth/devstorage.read_write';

/** A chunk of a resumable upload may take this many connector timeouts: 8 MiB at 140 kB/s. */
const UPLOAD_REQUEST_TIMEOUT_FACTOR = 6;

export interface CloudStoreSession {
  readonly storage: Storage;
  /** The project buckets are listed in: the key's, or the workload identity connection's. */
  readonly projectId: string;
}

export interface CloudStoreSessionOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * A Storage client for a connection: the access token is obtained first (cloud/token.ts:
 * through the outbound guard, bounded), and the client sends it as a bearer header. Requests
 * go to GCS_API_ENDPOINT; each is bounded by the connector timeout and made once (a job
 * retries its transient failures, 30-1303 and 30-1307, itself).
 *
 * The SDK sends JSON API calls through teeny-request, which takes no agent: the endpoint, which
 * this deployment configures and no user names, is checked by address before the client is
 * built. Resumable uploads go through the auth client's request, which uses a guarded agent.
 */
export async function openCloudStore(
  credentials: GoogleCredentials,
  options: CloudStoreSessionOptions,
): Promise<CloudStoreSession> {
  const endpoint = config.gcsApiEndpoint.replace(/\/+$/, '');
  await assertConfiguredDestination(new URL(endpoint));
  const token = await googleAccessToken(credentials, {
    scope: SERVICE_ACCOUNT_SCOPE,
    timeoutMs: options.timeoutMs,
    keyErrorCode: '30-1320',
    signal: options.signal,
  });
  const authorization = `Bearer ${token.accessToken}`;
  const storage = new Storage({
    apiEndpoint: endpoint,
    projectId: token.projectId,
    authClient: bearerClient(authorization, token.projectId),
    // Without it the SDK sends no credentials to an endpoint outside googleapis.com (the fakes).
    useAuthWithCustomEndpoint: true,
    timeout: options.timeoutMs,
    retryOptions: { autoRetry: false },
  });
  const agent = guardedAgent(new URL(endpoint));
  // The SDK builds the options of resumable-upload requests from its interceptors alone, and
  // for an endpoint outside googleapis.com sends them without its auth client: the bearer
  // header, the guarded agent and a bound travel with them here. Its other requests already
  // carry the client's timeout and ignore the agent (see above).
  storage.interceptors.push({
    request: (request) => {
      request.headers = { ...request.headers, Authorization: authorization };
      request.timeout ??= options.timeoutMs * UPLOAD_REQUEST_TIMEOUT_FACTOR;
      // Typed as a JSON API request; it is whatever the SDK passes (an empty object for uploads).
      return Object.assign(request, { agent }) as ReturnType<Interceptor['request']>;
    },
  });
  return { storage, projectId: token.projectId };
}

type StorageAuthClient = NonNullable<StorageOptions['authClient']>;
type Interceptor = Storage['interceptors'][number];

/**
 * The auth client the SDK is given: a fixed bearer token. The SDK calls getRequestHeaders for
 * its JSON API calls and request (gaxios options, completed by the interceptor above) for
 * resumable uploads. Its declared type is the AuthClient class of the SDK's own copy of
 * google-auth-library, which this code cannot import; the object provides the members the
 * SDK uses, hence the one cast.
 */
function bearerClient(authorization: string, projectId: string): StorageAuthClient {
  const client = {
    projectId,
    universeDomain: 'googleapis.com',
    getRequestHeaders: async (): Promise<Record<string, string>> => ({ Authorization: authorization }),
    request: <T>(request: GaxiosOptions): Promise<GaxiosResponse<T>> => {
      // A session URL comes from the store's answer: it is checked like any destination.
      assertDestinationAllowed(new URL(String(request.url)));
      return gaxiosRequest<T>(request);
    },
  };
  return client as unknown as StorageAuthClient;
}
