/**
 * Failures of the identity provider, each from a real cause: a role item the provider cannot
 * read (30-7005), and a store that is not there behind the component's seam for creates
 * (30-7003) and deletes (30-7004). The service answers with the provider's code and no more.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../shared/aws/clients';
import { config } from '../../../shared/config';
import { keys } from '../../../shared/db/keys';
import { replaceIdentityProvider, type IdentityProvider } from '../../../shared/identity/provider';
import { StoreIdentityProvider } from '../../../shared/identity/store-provider';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;

beforeAll(async () => {
  env = await startTestTwin();
});
afterAll(() => env?.close());

/**
 * The store-backed provider, with `broken` operations done by one whose table does not exist:
 * the store answers them with ResourceNotFoundException, as it would for a deleted table.
 */
function partlyUnreachable(broken: readonly (keyof IdentityProvider)[]): IdentityProvider {
  const working = new StoreIdentityProvider();
  const unreachable = new StoreIdentityProvider({ tableName: () => 'identity-table-that-does-not-exist' });
  const pick = <K extends keyof IdentityProvider>(name: K): IdentityProvider[K] => {
    const provider = broken.includes(name) ? unreachable : working;
    return provider[name].bind(provider) as IdentityProvider[K];
  };
  return {
    roles: pick('roles'),
    createClient: pick('createClient'),
    findClient: pick('findClient'),
    listClients: pick('listClients'),
    deleteClient: pick('deleteClient'),
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
  it('30-7003 when the provider cannot store a new client; nothing is created', async () => {
    const before = (await env.admin.call('listTokens')).body.total;
    const failed = await withProvider(partlyUnreachable(['createClient']), () =>
      env.admin.call('createToken', { body: tokenBody }),
    );
    expect(failed.status).toBe(500);
    expect(failed.problem).toMatchObject({
      code: '30-7003',
      detail: 'Failed to create tenant token at the identity provider',
    });
    expect(failed.text).not.toMatch(/ResourceNotFound|identity-table/);
    expect((await env.admin.call('listTokens')).body.total).toBe(before);
  });

  it('30-7004 when the provider cannot delete a client; the token stays', async () => {
    const created = await env.admin.call('createToken', { body: tokenBody });
    const { client_id } = created.body;
    const failed = await withProvider(partlyUnreachable(['deleteClient']), () =>
      env.admin.call('deleteToken', { params: { client_id } }),
    );
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
    await dynamoDocumentClient().send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.record('damaged', 'ROLE', 'half-written'), role_id: 'half-written', name: 'broken' },
      }),
    );
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

  it('30-7005 when the roles store is unreachable', async () => {
    const failed = await withProvider(partlyUnreachable(['roles']), () => env.admin.call('listRoles'));
    expect(failed.problem).toMatchObject({ code: '30-7005' });
  });
});
