/**
 * The soak's two callers: the bootstrap admin of tenant "local" for the ordinary traffic, and
 * the admin of a tenant of its own for the hostile traffic. Tokens last 15 minutes
 * (TOKEN_TTL_SECONDS), so `renew` exchanges new ones before a long soak outlives them.
 */
import { createCredentials, type IssuedCredentials } from '../../shared/identity/clients';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';
import type { ImportTwinReady } from '../../bench/import-protocol';
import { ApiClient } from '../support/api-client';
import { exchangeToken } from '../support/harness';

/** The tenant of the hostile requests. */
export const HOSTILE_TENANT = 'soak-hostile';
/** Tokens are exchanged again once this old, well before they expire. */
const RENEW_AFTER_MS = 10 * 60_000;

/**
 * An admin client of `tenantId`, written straight into the twin's table as
 * `npm run create-client -- --local` does (there is no API for it).
 */
export async function createTenantAdmin(ready: ImportTwinReady, tenantId: string): Promise<IssuedCredentials> {
  // The service's own SDK clients (shared/aws/clients.ts) read these.
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: LOCAL_S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_S3_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: ready.dynamoEndpoint,
    TABLE_NAME: ready.tableName,
  });
  return createCredentials({ tenantId, roleNames: ['admin'], description: 'admin of the soak’s hostile requests' });
}

export class RenewedClient {
  private client: ApiClient;
  private since = Date.now();

  private constructor(
    private readonly apiUrl: string,
    private readonly credentials: IssuedCredentials,
    token: string,
  ) {
    this.client = new ApiClient(apiUrl, token);
  }

  static async signIn(apiUrl: string, credentials: IssuedCredentials): Promise<RenewedClient> {
    return new RenewedClient(
      apiUrl,
      credentials,
      await exchangeToken(apiUrl, credentials.client_id, credentials.client_secret),
    );
  }

  /** The client with the current token. */
  readonly current = (): ApiClient => this.client;

  /** Exchanges a new token when the current one is RENEW_AFTER_MS old. */
  async renew(): Promise<void> {
    if (Date.now() - this.since < RENEW_AFTER_MS) return;
    const token = await exchangeToken(this.apiUrl, this.credentials.client_id, this.credentials.client_secret);
    this.client = new ApiClient(this.apiUrl, token);
    this.since = Date.now();
  }
}
