/**
 * The admin plane over HTTP: only the platform admin reaches /admin/..., and it reaches
 * nothing inside a tenant; tenants are created with their system user and a bootstrap admin
 * whose secret is shown once; users and roles are looked up with the admin plane's codes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf } from '../../../shared/auth/permissions';
import { ApiClient } from '../../support/api-client';
import { exchangeToken, startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let platform: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  platform = env.platformAdmin;
});
afterAll(() => env?.close());

async function newTenant(tenantId: string) {
  const created = await platform.call('createTenant', { body: { tenant_id: tenantId, name: `Tenant ${tenantId}` } });
  expect(created.status, created.text).toBe(201);
  return created;
}

describe('who reaches the admin plane', () => {
  it('a tenant admin gets 403 on every kind of admin route, naming the permission it lacks', async () => {
    const tenantAdmin = env.admin;
    for (const response of [
      await tenantAdmin.call('listFeatureToggles'),
      await tenantAdmin.call('setFeatureToggleDefault', {
        params: { toggle_name: 'connector.object_store' },
        body: { strategy: 'off' },
      }),
      await tenantAdmin.call('createTenant', { body: { tenant_id: 'sneaky', name: 'Sneaky' } }),
      await tenantAdmin.call('listTenants'),
      await tenantAdmin.call('getPlatformRole', { params: { role_name: 'admin' } }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.problem).toMatchObject({
        code: '10-403',
        extraDetails: { required_permission: 'platform:admin' },
      });
    }
    expect((await platform.call('getTenant', { params: { tenant_id: 'sneaky' } })).problem.code).toBe('50-1003');
    expect(
      (await platform.call('getFeatureToggle', { params: { toggle_name: 'connector.object_store' } })).body,
    ).toMatchObject({ default: { strategy: 'on' } });
  });

  it('the platform admin reaches no tenant data', async () => {
    const response = await platform.call('listConnections');
    expect(response.status).toBe(403);
    expect(response.problem.code).toBe('10-403');
  });

  it('an anonymous caller gets 401', async () => {
    expect((await env.anonymous.call('listTenants')).problem.code).toBe('10-401');
  });
});

describe('tenants', () => {
  it('creates a tenant whose bootstrap admin works at once, inside that tenant only, and never on /admin', async () => {
    const created = await newTenant('acme');
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { admin_client: adminClient, ...tenant } = created.body;
    expect(tenant).toMatchObject({
      tenant_id: 'acme',
      name: 'Tenant acme',
      created_by: env.twin.platformAdmin.client_id,
    });
    expect(adminClient.client_id).toMatch(/^acme\./);

    const acme = new ApiClient(
      env.twin.apiUrl,
      await exchangeToken(env.twin.apiUrl, adminClient.client_id, adminClient.client_secret!),
      'acme',
    );
    expect((await acme.call('listConnections')).body.total).toBe(0);
    expect((await acme.call('listTenants')).status).toBe(403);

    const read = await platform.call('getTenant', { params: { tenant_id: 'acme' } });
    expect(read.body).toEqual(tenant);
    expect(read.text).not.toContain(adminClient.client_secret!);
    // The registry keeps the system user's secret sealed; no answer carries it.
    for (const text of [created.text, read.text]) expect(text).not.toMatch(/system_user_secret|"data"|"iv"/);
    const list = await platform.call('listTenants');
    expect(list.body.items.map((item) => item.tenant_id)).toContain('acme');
    expect(list.text).not.toContain(adminClient.client_secret!);
  });

  it('refuses a tenant id in use (10-409) and the platform’s own (10-1400); an unknown tenant is 50-1003', async () => {
    await newTenant('twice');
    const again = await platform.call('createTenant', { body: { tenant_id: 'twice', name: 'Again' } });
    expect(again.status).toBe(409);
    expect(again.problem.code).toBe('10-409');
    const reserved = await platform.call('createTenant', { body: { tenant_id: 'platform', name: 'Mine' } });
    expect(reserved.problem).toMatchObject({ code: '10-1400', extraDetails: { tenant_id: 'platform is reserved' } });
    const unknown = await platform.call('getTenant', { params: { tenant_id: 'nobody' } });
    expect(unknown.status).toBe(404);
    expect(unknown.problem).toMatchObject({ code: '50-1003', detail: 'Tenant not found' });
    expect((await platform.call('getTenantSystemUser', { params: { tenant_id: 'nobody' } })).problem.code).toBe(
      '50-1003',
    );
  });
});

describe('the tenant list', () => {
  it('pages, sorts and filters like every list (ListQuery), over more tenants than one page', async () => {
    const ids = ['page-a', 'page-b', 'page-c', 'page-d', 'page-e'];
    for (const id of ids) await newTenant(id);
    const filter = "tenant_id sw 'page-'";
    const pages = [];
    for (const offset of [0, 2, 4]) {
      const page = await platform.call('listTenants', { query: { filter, sort: '-tenant_id', offset, limit: 2 } });
      expect(page.status, page.text).toBe(200);
      expect(page.body).toMatchObject({ offset, total: ids.length, limit: page.body.items.length });
      pages.push(page.body.items.map((tenant) => tenant.tenant_id));
    }
    expect(pages).toEqual([['page-e', 'page-d'], ['page-c', 'page-b'], ['page-a']]);
    const named = await platform.call('listTenants', { query: { filter: "name eq 'Tenant page-c'" } });
    expect(named.body.items.map((tenant) => tenant.tenant_id)).toEqual(['page-c']);
    const malformed = await platform.call('listTenants', { query: { filter: 'secret eq 1' } });
    expect(malformed.status).toBe(400);
    expect(malformed.problem).toMatchObject({ code: '10-1400', extraDetails: { filter: expect.any(String) } });
  });
});

describe('users of a tenant', () => {
  it('shows the system user, without a secret; 50-1007 once its client is deleted', async () => {
    const created = await newTenant('globex');
    const systemUser = await platform.call('getTenantSystemUser', { params: { tenant_id: 'globex' } });
    expect(systemUser.body).toMatchObject({
      tenant_id: 'globex',
      client_id: created.body.system_user_client_id,
      roles: ['system-admin'],
    });
    expect(systemUser.text).not.toMatch(/secret|digest|salt/);

    // The tenant's own admin deletes the system user's client, as it may any client of its tenant.
    const admin = created.body.admin_client;
    const globex = new ApiClient(
      env.twin.apiUrl,
      await exchangeToken(env.twin.apiUrl, admin.client_id, admin.client_secret!),
      'globex',
    );
    const deleted = await globex.call('deleteToken', { params: { client_id: created.body.system_user_client_id } });
    expect(deleted.status).toBe(204);
    const gone = await platform.call('getTenantSystemUser', { params: { tenant_id: 'globex' } });
    expect(gone.status).toBe(404);
    expect(gone.problem).toMatchObject({ code: '50-1007', detail: 'System user not found for tenant globex' });
  });

  it('shows a customer user; 50-1013 for a client the tenant does not have, or its system user', async () => {
    const created = await newTenant('initech');
    const adminId = created.body.admin_client.client_id;
    const customer = await platform.call('getTenantCustomerUser', {
      params: { tenant_id: 'initech', client_id: adminId },
    });
    expect(customer.body).toMatchObject({ client_id: adminId, roles: ['admin'], expires_at: null });
    expect(customer.text).not.toContain(created.body.admin_client.client_secret);

    const acmeClient = (await newTenant('hooli')).body.admin_client.client_id;
    for (const clientId of [created.body.system_user_client_id, acmeClient, 'initech.nobody']) {
      const missing = await platform.call('getTenantCustomerUser', {
        params: { tenant_id: 'initech', client_id: clientId },
      });
      expect(missing.status, clientId).toBe(404);
      expect(missing.problem).toMatchObject({ code: '50-1013', detail: 'Customer user not found for tenant initech' });
    }
  });
});

describe('roles', () => {
  it('looks a role up with its permissions; an unknown one is 50-1010 naming it', async () => {
    const editor = await platform.call('getPlatformRole', { params: { role_name: 'editor' } });
    expect(editor.body).toEqual({ name: 'editor', permissions: permissionsOf(['editor']) });
    const unknown = await platform.call('getPlatformRole', { params: { role_name: 'superuser' } });
    expect(unknown.status).toBe(404);
    expect(unknown.problem).toMatchObject({ code: '50-1010', detail: 'Role superuser not found' });
  });
});
