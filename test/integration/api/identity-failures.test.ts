/**
 * Failures of the identity provider, each from a real cause in its store: a conditional write
 * that does not hold (a create under a client id that exists, 30-7003), a key the store refuses
 * (a delete, 30-7004), a role item the provider cannot read (30-7005). The first two are brought
 * about through the component's seam. The service answers with the provider's code and no more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../shared/db/keys';
import { putItem } from '../../../shared/db/table';
import { replaceIdentityProvider, type IdentityProvider } from '../../../shared/identity/provider';
import { StoreIdentityProvider } from '../../../shared/identity/store-provider';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;

beforeAll(async () => {
  env = await startTestTwin();
});
afterAll(() => env?.close());

/** The store-backed provider with some of its operations replaced: what the component's seam takes. */
function providerWith(changes: Partial<IdentityProvider>): IdentityProvider {
  const store = new StoreIdentityProvider();
  return {
    roles: (tenantId) => store.roles(tenantId),
    createClient: (client, idempotency) => store.createClient(client, idempotency),
    createClientsWith: (clients, alongside) => store.createClientsWith(clients, alongside),
    findClient: (tenantId, clientId) => store.findClient(tenantId, clientId),
    listClients: (tenantId) => store.listClients(tenantId),
    deleteClient: (tenantId, clientId) => store.deleteClient(tenantId, clientId),
    ...changes,
  };
}

async function withProvider<T>(provider: IdentityProvider, work: () => Promise<T>): Promise<T> {
  const restore = replaceIdentityProvider(provider);
  try {
    return await work();
  } finally {
    restore();
  }
}

const tokenBody = { description: 'x', role_names: ['viewer'], expiration: 'P1D' };

describe('failures of the identity provider', () => {
  it('30-7003 when the provider cannot store a new client (its conditional write fails); nothing is created', async () => {
    const existing = (await env.admin.call('listTokens')).body.items[0]!.client_id;
    const before = (await env.admin.call('listTokens')).body.total;
    const store = new StoreIdentityProvider();
    // The new client under an id the store already holds: the write's "no such item" condition fails.
    const colliding = providerWith({
      createClient: (client, idempotency) => store.createClient({ ...client, client_id: existing }, idempotency),
    });
    const failed = await withProvider(colliding, () => env.admin.call('createToken', { body: tokenBody }));
    expect(failed.status).toBe(500);
    expect(failed.problem).toMatchObject({
      code: '30-7003',
      detail: 'Failed to create tenant token at the identity provider',
    });
    expect(failed.text).not.toMatch(/exists|CLIENT/);
    expect((await env.admin.call('listTokens')).body.total).toBe(before);
  });

  it('30-7004 when the provider cannot delete a client (the store refuses its key); the token stays', async () => {
    const created = await env.admin.call('createToken', { body: tokenBody });
    const { client_id } = created.body;
    const store = new StoreIdentityProvider();
    // A sort key over DynamoDB's 1024 bytes: the store answers ValidationException.
    const refusing = providerWith({
      deleteClient: (tenantId, clientId) => store.deleteClient(tenantId, clientId.padEnd(2048, '0')),
    });
    const failed = await withProvider(refusing, () => env.admin.call('deleteToken', { params: { client_id } }));
    expect(failed.status).toBe(500);
    expect(failed.problem).toMatchObject({
      code: '30-7004',
      detail: 'Failed to delete tenant token at the identity provider',
    });
    expect((await env.admin.call('getToken', { params: { client_id } })).status).toBe(200);
    expect((await env.admin.call('deleteToken', { params: { client_id } })).status).toBe(204);
  });

  it('30-7005 when the provider cannot read the roles of the store (an item that is no role)', async () => {
    const admin: ApiClient = await env.clientFor('damaged', ['admin']);
    // A role item without permissions, as a hand edit or another writer could leave it.
    await putItem(keys.record('damaged', 'ROLE', 'half-written'), { role_id: 'half-written', name: 'broken' });
    for (const failed of [await admin.call('listRoles'), await admin.call('createToken', { body: tokenBody })]) {
      expect(failed.status).toBe(500);
      expect(failed.problem).toMatchObject({
        code: '30-7005',
        detail: 'Failed to retrieve roles from the identity provider',
      });
      expect(failed.text).not.toContain('half-written');
    }
    // Other tenants' roles are not affected.
    expect((await env.admin.call('listRoles')).status).toBe(200);
  });
});
