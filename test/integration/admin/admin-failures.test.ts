/**
 * Failures of the admin plane's upstream, each from a real cause: a tenant whose system user
 * no longer authenticates (its client deleted by the tenant's admin, its stored secret hash
 * replaced, its client expired) answers 50-1014 where the admin plane acts as that system user;
 * the platform's store losing its table (the identity provider's store, and the registry's)
 * answers 50-1012. The last test deletes the twin's table, so it runs last in this file.
 */
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientStore, type ClientRecord } from '../../../shared/auth/client-store';
import { digestSecret } from '../../../shared/auth/client-secrets';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { TABLE_NAME } from '../../../infra/local/twin';
import { PLATFORM_TENANT } from '../../../shared/tenants/store';
import { ApiClient } from '../../support/api-client';
import { exchangeToken, startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let platform: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  platform = env.platformAdmin;
});
afterAll(() => env?.close());

/** A new tenant, its bootstrap admin signed in, and the ids of its system user and admin. */
async function newTenant(tenantId: string) {
  const created = await platform.call('createTenant', { body: { tenant_id: tenantId, name: `Tenant ${tenantId}` } });
  expect(created.status, created.text).toBe(201);
  const { admin_client: admin, system_user_client_id: systemUserId } = created.body;
  const tenantAdmin = new ApiClient(
    env.twin.apiUrl,
    await exchangeToken(env.twin.apiUrl, admin.client_id, admin.client_secret!),
    tenantId,
  );
  return { tenantAdmin, adminId: admin.client_id, systemUserId };
}

/** Reads a customer user of the tenant: the admin plane does it acting as the tenant's system user. */
const readCustomerUser = (tenantId: string, clientId: string) =>
  platform.call('getTenantCustomerUser', { params: { tenant_id: tenantId, client_id: clientId } });

/** Rewrites the system user's client at the identity provider's store, as another writer could. */
async function changeStoredClient(tenantId: string, clientId: string, change: Partial<ClientRecord>) {
  const stored = await clientStore.find(tenantId, clientId);
  expect(stored).toBeDefined();
  await clientStore.put(tenantId, { ...stored!, ...change });
}

function expectSystemUserFailure(response: Awaited<ReturnType<typeof readCustomerUser>>, tenantId: string) {
  expect(response.status).toBe(502);
  expect(response.problem).toMatchObject({
    code: '50-1014',
    detail: `System user of tenant ${tenantId} failed to authenticate`,
  });
  expect(response.text).not.toMatch(/secret|digest|scrypt|expired/i);
}

describe('a system user that fails to authenticate (50-1014)', () => {
  it('once the tenant’s admin deletes the system user’s client; looking the system user up says 50-1007', async () => {
    const { tenantAdmin, adminId, systemUserId } = await newTenant('deleted-system');
    expect((await readCustomerUser('deleted-system', adminId)).status).toBe(200);
    expect((await tenantAdmin.call('deleteToken', { params: { client_id: systemUserId } })).status).toBe(204);
    expectSystemUserFailure(await readCustomerUser('deleted-system', adminId), 'deleted-system');
    const lookUp = await platform.call('getTenantSystemUser', { params: { tenant_id: 'deleted-system' } });
    expect(lookUp.problem.code).toBe('50-1007');
  });

  it('once the identity provider holds another secret’s hash for it; the tenant’s own clients still work', async () => {
    const { tenantAdmin, adminId, systemUserId } = await newTenant('rehashed');
    await changeStoredClient('rehashed', systemUserId, { secret: await digestSecret('a secret nobody sealed') });
    expectSystemUserFailure(await readCustomerUser('rehashed', adminId), 'rehashed');
    // The client itself is still there: the look-up finds it, and the tenant is unaffected.
    expect((await platform.call('getTenantSystemUser', { params: { tenant_id: 'rehashed' } })).status).toBe(200);
    expect((await tenantAdmin.call('getToken', { params: { client_id: systemUserId } })).status).toBe(200);
  });

  it('once the system user’s client has expired', async () => {
    const { adminId, systemUserId } = await newTenant('lapsed-system');
    await changeStoredClient('lapsed-system', systemUserId, { expires_at: new Date(Date.now() - 1000).toISOString() });
    expectSystemUserFailure(await readCustomerUser('lapsed-system', adminId), 'lapsed-system');
  });
});

describe('the platform’s store unavailable (50-1012)', () => {
  it('answers 502 50-1012 on the tenant routes once the table of the identity provider and the registry is gone', async () => {
    const { adminId } = await newTenant('before-outage');
    // A platform admin of its own, whose first request is just now: the authorizer keeps what the
    // store said of its client for a few seconds (shared/identity/revocation.ts), from this
    // request on, so the requests below reach the routes instead of failing in the authorizer.
    const operator = await env.clientFor(PLATFORM_TENANT, ['platform-admin']);
    expect((await operator.call('getTenant', { params: { tenant_id: 'before-outage' } })).status).toBe(200);
    const dynamo = new DynamoDBClient({
      endpoint: env.twin.dynamoEndpoint,
      region: 'us-east-1',
      credentials: LOCAL_S3_CREDENTIALS,
    });
    try {
      await dynamo.send(new DeleteTableCommand({ TableName: TABLE_NAME }));
    } finally {
      dynamo.destroy();
    }
    for (const response of [
      await operator.call('createTenant', { body: { tenant_id: 'during-outage', name: 'During' } }),
      await operator.call('listTenants'),
      await operator.call('getTenant', { params: { tenant_id: 'before-outage' } }),
      await operator.call('getTenantSystemUser', { params: { tenant_id: 'before-outage' } }),
      await operator.call('getTenantCustomerUser', {
        params: { tenant_id: 'before-outage', client_id: adminId },
      }),
    ]) {
      expect(response.status, response.text).toBe(502);
      expect(response.problem).toMatchObject({ code: '50-1012', detail: 'Upstream service unavailable' });
      expect(response.text).not.toMatch(/ResourceNotFound|dps-local|table/i);
    }
  });
});
