/**
 * Creating a tenant is all or nothing: its registry record, its system user and its bootstrap
 * admin are written in one transaction, so a create that fails half-way (a real refusal of the
 * identity provider's store) leaves no tenant and no client behind, and a retry with the same
 * Idempotency-Key, or twenty of them at once, makes one tenant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientRecord } from '../../../shared/auth/client-store';
import type { TransactItem } from '../../../shared/db/transactions';
import { createCredentials } from '../../../shared/identity/clients';
import { replaceIdentityProvider } from '../../../shared/identity/provider';
import { StoreIdentityProvider } from '../../../shared/identity/store-provider';
import { ApiClient } from '../../support/api-client';
import { exchangeToken, startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let platform: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  platform = env.platformAdmin;
});
afterAll(() => env?.close());

const create = (tenantId: string, headers: Record<string, string> = {}) =>
  platform.call('createTenant', { body: { tenant_id: tenantId, name: `Tenant ${tenantId}` }, headers });

/** The client ids the tenant has at the identity provider, as an admin of it lists them. */
async function clientIdsOf(admin: ApiClient): Promise<string[]> {
  const listed = await admin.call('listTokens');
  expect(listed.status, listed.text).toBe(200);
  return listed.body.items.map((item) => item.client_id).sort();
}

async function signedIn(tenantId: string, clientId: string, secret: string): Promise<ApiClient> {
  return new ApiClient(env.twin.apiUrl, await exchangeToken(env.twin.apiUrl, clientId, secret), tenantId);
}

describe('a tenant create that fails half-way', () => {
  it('leaves no tenant and no client when the admin client’s write is refused; a retry with the key makes one', async () => {
    // A client of the tenant-to-be exists already (made at the identity provider alone, as before
    // every tenant came through the registry); the create's bootstrap admin is given its id, so
    // that write's "no such item" condition fails in the store.
    const made = await createCredentials({ tenantId: 'halfway', roleNames: ['admin'] });
    const insider = await signedIn('halfway', made.client_id, made.client_secret);
    const [insiderId] = await clientIdsOf(insider);
    const colliding = new (class extends StoreIdentityProvider {
      override createClientsWith(clients: readonly ClientRecord[], alongside: readonly TransactItem[]) {
        const renamed = clients.map((client) =>
          client.roles.includes('admin') ? { ...client, client_id: insiderId! } : client,
        );
        return super.createClientsWith(renamed, alongside);
      }
    })();
    const headers = { 'idempotency-key': 'halfway-1' };
    const restore = replaceIdentityProvider(colliding);
    let failed: Awaited<ReturnType<typeof create>>;
    try {
      failed = await create('halfway', headers);
    } finally {
      restore();
    }
    expect(failed.status).toBe(500);
    expect(failed.problem).toMatchObject({ code: '30-7003' });
    expect(failed.text).not.toMatch(/halfway\.[0-9a-f]{32}/);
    // Nothing of it is left: no registry record, and the system user written beside it is gone too.
    expect((await platform.call('getTenant', { params: { tenant_id: 'halfway' } })).problem.code).toBe('50-1003');
    expect(await clientIdsOf(insider)).toEqual([insiderId]);

    const retried = await create('halfway', headers);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.body.admin_client.client_secret).toEqual(expect.any(String));
    const again = await create('halfway', headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.admin_client).toEqual({ client_id: retried.body.admin_client.client_id });
    expect(await clientIdsOf(insider)).toEqual(
      [insiderId!, retried.body.system_user_client_id, retried.body.admin_client.client_id].sort(),
    );
  });
});

describe('concurrent creates', () => {
  it('20 parallel creates with one Idempotency-Key make one tenant with two clients; one answer holds the secret', async () => {
    const headers = { 'idempotency-key': 'parallel-tenant-1' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => create('parallel', headers)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((answer) => answer.body.system_user_client_id)).size).toBe(1);
    const first = answers.filter((answer) => answer.body.admin_client.client_secret !== undefined);
    expect(first).toHaveLength(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    const { admin_client: admin, system_user_client_id: systemUserId } = first[0]!.body;
    const tenantAdmin = await signedIn('parallel', admin.client_id, admin.client_secret!);
    expect(await clientIdsOf(tenantAdmin)).toEqual([admin.client_id, systemUserId].sort());
    const listed = await platform.call('listTenants');
    expect(listed.body.items.filter((tenant) => tenant.tenant_id === 'parallel')).toHaveLength(1);
    const reused = await platform.call('createTenant', { body: { tenant_id: 'other', name: 'Other' }, headers });
    expect(reused.problem).toMatchObject({ code: '10-1400', extraDetails: { 'Idempotency-Key': expect.any(String) } });
  });

  it('20 parallel creates of one tenant id without a key: one 201, the rest 10-409, and no client of the losers', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => create('contested')));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, ...Array(19).fill(409)]);
    const won = answers.find((answer) => answer.status === 201)!.body;
    const tenantAdmin = await signedIn('contested', won.admin_client.client_id, won.admin_client.client_secret!);
    expect(await clientIdsOf(tenantAdmin)).toEqual([won.admin_client.client_id, won.system_user_client_id].sort());
  });
});
