/**
 * Test harness: the local twin started in this test process on random 127.0.0.1 ports, and
 * HTTP clients that authenticate the way a real caller does (client credentials → token).
 */
import type { RoleName } from '../../shared/auth/permissions';
import { TOGGLE_CACHE_MS } from '../../shared/features/store';
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
  /**
   * Sets `toggle` for each tenant as the platform admin does (`default` clears the override),
   * then waits until every function instance's toggle cache has seen it.
   */
  setFeature(toggle: string, tenantIds: string | readonly string[], state: 'on' | 'off' | 'default'): Promise<void>;
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
  const setFeature = async (toggle: string, tenantIds: string | readonly string[], state: 'on' | 'off' | 'default') => {
    for (const tenantId of typeof tenantIds === 'string' ? [tenantIds] : tenantIds) {
      const params = { toggle_name: toggle, tenant_id: tenantId };
      const response =
        state === 'default'
          ? await platformAdmin.call('clearFeatureToggleOverride', { params })
          : await platformAdmin.call('setFeatureToggleOverride', { params, body: { strategy: state } });
      if (response.status >= 300)
        throw new Error(`toggle ${toggle} for ${tenantId}: ${response.status} ${response.text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, TOGGLE_CACHE_MS + 100));
  };
  return {
    twin,
    anonymous: new ApiClient(twin.apiUrl, null),
    admin,
    platformAdmin,
    clientFor,
    setFeature,
    close: () => twin.close(),
  };
}
