/**
 * Test harness: the local twin started in this test process on random 127.0.0.1 ports, and
 * HTTP clients that authenticate the way a real caller does (client credentials → token).
 */
import type { RoleName } from '../../shared/auth/permissions';
import { issueOperatorClient } from '../../shared/tenants/create';
import { startTwin, type Twin, type TwinOptions } from '../../infra/local/twin';
import { ApiClient } from './api-client';

export interface TestTwin {
  readonly twin: Twin;
  /** Unauthenticated client. */
  readonly anonymous: ApiClient;
  /** Admin of tenant "local". */
  readonly admin: ApiClient;
  /** The twin's platform admin: the admin plane (/admin/...) and nothing inside a tenant. */
  readonly platformAdmin: ApiClient;
  /** A client of `tenantId` with `roles`, authenticated through POST /oauth/token. */
  clientFor(tenantId: string, roles: readonly RoleName[]): Promise<ApiClient>;
  close(): Promise<void>;
}

export async function exchangeToken(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (response.status !== 200) throw new Error(`token exchange failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export async function startTestTwin(options: TwinOptions = {}): Promise<TestTwin> {
  const twin = await startTwin(options);
  // Through the one tenant-creation path, as create-client: a new tenant is in the registry (GET /admin/tenants).
  const clientFor = async (tenantId: string, roles: readonly RoleName[]) => {
    const credentials = await issueOperatorClient(
      { tenantId, roleNames: roles, description: `${roles.join('+')} of ${tenantId}` },
      'test-harness',
    );
    return new ApiClient(
      twin.apiUrl,
      await exchangeToken(twin.apiUrl, credentials.client_id, credentials.client_secret),
      tenantId,
    );
  };
  const admin = new ApiClient(
    twin.apiUrl,
    await exchangeToken(twin.apiUrl, twin.admin.client_id, twin.admin.client_secret),
    twin.admin.tenant_id,
  );
  const platformAdmin = new ApiClient(
    twin.apiUrl,
    await exchangeToken(twin.apiUrl, twin.platformAdmin.client_id, twin.platformAdmin.client_secret),
    twin.platformAdmin.tenant_id,
  );
  return {
    twin,
    anonymous: new ApiClient(twin.apiUrl, null),
    admin,
    platformAdmin,
    clientFor,
    close: () => twin.close(),
  };
}
