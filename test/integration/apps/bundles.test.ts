/**
 * App bundles and installs over HTTP (docs/apps.md): the toggle, bundle versions and
 * publishing (80-8003, 80-8012, 80-8016, 80-8037), links (80-8002, 80-8015, 80-8018, 80-8019),
 * installs and their races (80-8014, 80-8017, 80-8042), provisioning failures rolled back
 * (80-8026, 80-8040, 80-8043), and tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientRecord } from '../../../shared/auth/client-store';
import { AppError } from '../../../shared/errors/app-error';
import { identityProvider, replaceIdentityProvider, type IdentityProvider } from '../../../shared/identity/provider';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { appsClient, bundleWith, expectProblem, fileOf, installed, sampleFiles, sampleManifest } from './app-support';

let env: TestTwin;
let admin: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  admin = await appsClient(env, 'apps-bundles');
});
afterAll(() => env?.close());

describe('the apps toggle', () => {
  it('answers 10-1501 on every app route while it is off for the tenant', async () => {
    const off = await appsClient(env, 'apps-off', ['admin'], false);
    expectProblem(await off.call('listAppBundles'), 501, '10-1501');
    expectProblem(await off.call('createAppBundle', { body: { name: 'x' } }), 501, '10-1501');
    expectProblem(await off.call('getAppInstall', { params: { bundle_id: 1 } }), 501, '10-1501');
  });
});

describe('bundles', () => {
  it('creates, lists, gets and renames a bundle; a body id other than the path’s is 80-8012', async () => {
    const created = await admin.call('createAppBundle', { body: { name: 'Renamed later', description: 'first' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Renamed later', published_version: null, versions: [] });
    const id = created.body.id;
    const listed = await admin.call('listAppBundles', { query: { filter: `name eq 'Renamed later'` } });
    expect(listed.body.items.map((bundle) => bundle.id)).toEqual([id]);
    const mismatch = await admin.call('updateAppBundle', {
      params: { bundle_id: id },
      body: { bundle_id: id + 1, name: 'Renamed', lock_version: 0 },
    });
    expectProblem(mismatch, 400, '80-8012');
    expect(mismatch.problem.detail).toBe(`Bundle id ${id + 1} in body does not match id ${id} in path`);
    const renamed = await admin.call('updateAppBundle', {
      params: { bundle_id: id },
      body: { bundle_id: id, name: 'Renamed', lock_version: 0 },
    });
    expect(renamed.body).toMatchObject({ name: 'Renamed', lock_version: 1 });
    expectProblem(
      await admin.call('updateAppBundle', { params: { bundle_id: id }, body: { name: 'Again', lock_version: 0 } }),
      409,
      '10-1006',
    );
  });

  it('answers 80-8003 for a bundle the tenant does not have, another tenant’s included', async () => {
    const id = await bundleWith(admin, 'Private to its tenant');
    const other = await appsClient(env, 'apps-other');
    for (const answer of [
      await other.call('getAppBundle', { params: { bundle_id: id } }),
      await other.call('getAppInstall', { params: { bundle_id: id } }),
      await other.call('installApp', { body: { bundle_id: id } }),
      await admin.call('getAppBundle', { params: { bundle_id: 999_999 } }),
    ])
      expectProblem(answer, 404, '80-8003');
    expect((await other.call('listAppBundles')).body.total).toBe(0);
  });

  it('publishes a version only with a valid manifest.json naming one of its files (80-8037)', async () => {
    const cases: Record<string, Record<string, string | undefined>> = {
      'is missing': { 'manifest.json': undefined },
      'is not JSON': { 'manifest.json': '{"manifest_version": 1,' },
      'lacks roles': { 'manifest.json': sampleManifest({ roles: [] }) },
      'names an entry the version lacks': { 'manifest.json': sampleManifest({ entry: 'missing.html' }) },
    };
    for (const [label, replaced] of Object.entries(cases)) {
      const id = await bundleWith(admin, `Invalid manifest ${label}`, sampleFiles(replaced), false);
      const published = await admin.call('publishAppBundleVersion', { params: { bundle_id: id, version_number: 1 } });
      expectProblem(published, 400, '80-8037');
      expect(published.problem.detail, label).toBe(
        `Bundle ${id} version 1 not published: manifest.json missing or invalid`,
      );
      expect((await admin.call('getAppBundle', { params: { bundle_id: id } })).body.published_version).toBeNull();
    }
  });

  it('publishes version 2 over version 1: the bundle’s published version moves', async () => {
    const id = await bundleWith(admin, 'Two versions');
    const second = await admin.call('uploadAppBundleVersion', {
      params: { bundle_id: id },
      body: { files: sampleFiles({ 'manifest.json': sampleManifest({ version: '2.0.0' }) }) },
    });
    expect(second.body).toMatchObject({ version_number: 2, status: 'UPLOADED', manifest: null });
    const published = await admin.call('publishAppBundleVersion', { params: { bundle_id: id, version_number: 2 } });
    expect(published.body.published_version).toBe(2);
    expect(published.body.versions.map((version) => version.status)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(published.body.versions[1]!.manifest?.version).toBe('2.0.0');
  });

  it('refuses file names with folders or dots first (10-1400)', async () => {
    const created = await admin.call('createAppBundle', { body: { name: 'Climbing files' } });
    for (const path of ['../escape.html', 'sub/page.html', '.hidden', '%2e%2e']) {
      const upload = await admin.call('uploadAppBundleVersion', {
        params: { bundle_id: created.body.id },
        body: { files: [fileOf(path, 'x')] },
      });
      expectProblem(upload, 400, '10-1400');
    }
  });
});

describe('links', () => {
  it('puts, gets, lists and deletes a link; 80-8002 once gone, 80-8018 for another id in the body', async () => {
    const put = await admin.call('putAppLink', { params: { link_id: 'crm' }, body: { details: { region: 'eu' } } });
    expect(put.body).toMatchObject({ link_id: 'crm', details: { region: 'eu' } });
    expect((await admin.call('getAppLink', { params: { link_id: 'crm' } })).body.details).toEqual({ region: 'eu' });
    expect((await admin.call('listAppLinks')).body.items.map((link) => link.link_id)).toContain('crm');
    const mismatch = await admin.call('putAppLink', {
      params: { link_id: 'crm' },
      body: { link_id: 'erp', details: { region: 'eu' } },
    });
    expectProblem(mismatch, 400, '80-8018');
    expect(mismatch.problem.detail).toBe('Link ID in URL (crm) and body (erp) mismatch');
    expect((await admin.call('deleteAppLink', { params: { link_id: 'crm' } })).status).toBe(204);
    expectProblem(await admin.call('getAppLink', { params: { link_id: 'crm' } }), 404, '80-8002');
    expectProblem(await admin.call('deleteAppLink', { params: { link_id: 'crm' } }), 404, '80-8002');
  });

  it('holds link details to the limits of spec 8 (80-8019)', async () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v']));
    const cases = {
      empty: {},
      'over 20 entries': many,
      'a value over 1024 characters': { key: 'x'.repeat(1025) },
      'over 3072 characters in all': {
        a: 'x'.repeat(1000),
        b: 'x'.repeat(1000),
        c: 'x'.repeat(1000),
        d: 'x'.repeat(100),
      },
    };
    for (const [label, details] of Object.entries(cases)) {
      const refused = await admin.call('putAppLink', { params: { link_id: 'limits' }, body: { details } });
      expect(refused.status, label).toBe(400);
      expectProblem(refused, 400, '80-8019');
    }
    const atLimits = { a: 'x'.repeat(1024), b: 'x'.repeat(1024), c: 'x'.repeat(1021) };
    expect(
      (await admin.call('putAppLink', { params: { link_id: 'limits' }, body: { details: atLimits } })).status,
    ).toBe(200);
  });
});

describe('installs', () => {
  it('installs, answers its status, refuses a second install (80-8017), uninstalls to NOT_INSTALLED', async () => {
    const id = await bundleWith(admin, 'Installed once');
    expect((await admin.call('getAppInstall', { params: { bundle_id: id } })).body.status).toBe('NOT_INSTALLED');
    await installed(admin, id);
    const status = await admin.call('getAppInstall', { params: { bundle_id: id } });
    expect(status.body).toMatchObject({ status: 'INSTALLED', enabled: true, version_number: 1 });
    // The app's SDK user is a token of the tenant, with the manifest's roles.
    const sdkUser = await admin.call('getToken', { params: { client_id: status.body.sdk_client_id! } });
    expect(sdkUser.body).toMatchObject({ role_ids: ['builtin.viewer'], description: 'app Installed once' });
    expectProblem(await admin.call('installApp', { body: { bundle_id: id } }), 409, '80-8017');
    expect((await admin.call('uninstallApp', { params: { bundle_id: id } })).status).toBe(204);
    expect((await admin.call('getAppInstall', { params: { bundle_id: id } })).body.status).toBe('NOT_INSTALLED');
    expectProblem(await admin.call('getToken', { params: { client_id: status.body.sdk_client_id! } }), 404, '10-404');
    expectProblem(await admin.call('uninstallApp', { params: { bundle_id: id } }), 404, '80-8014');
  });

  it('refuses a bundle without a published version (80-8016)', async () => {
    const id = await bundleWith(admin, 'Never published', sampleFiles(), false);
    const refused = await admin.call('installApp', { body: { bundle_id: id } });
    expectProblem(refused, 409, '80-8016');
    expect(refused.problem.detail).toBe(`Bundle ${id} cannot be installed because it is not published`);
  });

  it('needs a link for every provider the manifest requires (80-8015)', async () => {
    const manifest = sampleManifest({ required_providers: ['warehouse-a', 'warehouse-b'] });
    const id = await bundleWith(admin, 'Needs providers', sampleFiles({ 'manifest.json': manifest }));
    await admin.call('putAppLink', { params: { link_id: 'warehouse-a' }, body: { details: { account: 'a' } } });
    const refused = await admin.call('installApp', { body: { bundle_id: id } });
    expectProblem(refused, 409, '80-8015');
    expect(refused.problem.detail).toBe(
      'App cannot be installed: the tenant has no configured link for required providers warehouse-b',
    );
    await admin.call('putAppLink', { params: { link_id: 'warehouse-b' }, body: { details: { account: 'b' } } });
    await installed(admin, id);
  });

  it('lets exactly one of parallel installs win; the others get 80-8017', async () => {
    const id = await bundleWith(admin, 'Raced install');
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => admin.call('installApp', { body: { bundle_id: id } })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    for (const lost of answers.filter((answer) => answer.status !== 201)) expectProblem(lost, 409, '80-8017');
    const tokens = await admin.call('listTokens', { query: { filter: `description eq 'app Raced install'` } });
    expect(tokens.body.total).toBe(1);
  });

  it('races an uninstall against an install: each ends in a state the other respects', async () => {
    const id = await bundleWith(admin, 'Raced uninstall');
    await installed(admin, id);
    const [uninstalled, reinstalled] = await Promise.all([
      admin.call('uninstallApp', { params: { bundle_id: id } }),
      admin.call('installApp', { body: { bundle_id: id } }),
    ]);
    expect(uninstalled.status, uninstalled.text).toBe(204);
    // The install met the app still installed (80-8017), being uninstalled (80-8042), or gone: a new install.
    if (reinstalled.status !== 201) expect(['80-8017', '80-8042']).toContain(reinstalled.problem.code);
    const status = (await admin.call('getAppInstall', { params: { bundle_id: id } })).body;
    expect(status.status).toBe(reinstalled.status === 201 ? 'INSTALLED' : 'NOT_INSTALLED');
  });

  it('keeps a viewer from managing apps (10-403) and an installer from granting roles beyond their own', async () => {
    const viewer = await appsClient(env, 'apps-bundles', ['viewer'], false);
    expectProblem(await viewer.call('installApp', { body: { bundle_id: 1 } }), 403, '10-403');
    const manifest = sampleManifest({ roles: ['admin'] });
    const id = await bundleWith(admin, 'Wants admin', sampleFiles({ 'manifest.json': manifest }));
    const editor = await appsClient(env, 'apps-bundles', ['editor'], false);
    expectProblem(await editor.call('installApp', { body: { bundle_id: id } }), 403, '10-403');
    expect((await admin.call('getAppInstall', { params: { bundle_id: id } })).body.status).toBe('NOT_INSTALLED');
  });
});

/** The store's identity provider with some of its operations replaced: a provider that fails. */
function providerWith(changes: Partial<IdentityProvider>): IdentityProvider {
  const store = identityProvider();
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

describe('provisioning at the identity provider', () => {
  it('rolls an install back when the provider fails to make the SDK user (80-8026)', async () => {
    const id = await bundleWith(admin, 'Provider down');
    const restore = replaceIdentityProvider(
      providerWith({ createClient: () => Promise.reject(new AppError('30-7003')) }),
    );
    try {
      expectProblem(await admin.call('installApp', { body: { bundle_id: id } }), 500, '80-8026');
    } finally {
      restore();
    }
    expect((await admin.call('getAppInstall', { params: { bundle_id: id } })).body.status).toBe('NOT_INSTALLED');
    await installed(admin, id);
  });

  it('rolls an install back when the SDK user cannot be read back (80-8040), deleting what was made', async () => {
    const id = await bundleWith(admin, 'User lost');
    const store = identityProvider();
    const made: ClientRecord[] = [];
    const restore = replaceIdentityProvider(
      providerWith({
        createClient: async (client, idempotency) => {
          made.push(client);
          return store.createClient(client, idempotency);
        },
        findClient: async (tenantId, clientId) =>
          made.some((client) => client.client_id === clientId) ? undefined : store.findClient(tenantId, clientId),
      }),
    );
    try {
      expectProblem(await admin.call('installApp', { body: { bundle_id: id } }), 500, '80-8040');
    } finally {
      restore();
    }
    expect(made).toHaveLength(1);
    expect(await store.findClient('apps-bundles', made[0]!.client_id)).toBeUndefined();
    expect((await admin.call('getAppInstall', { params: { bundle_id: id } })).body.status).toBe('NOT_INSTALLED');
  });

  it('restores an install whose SDK user cannot be deleted (80-8043)', async () => {
    const id = await bundleWith(admin, 'Undeletable user');
    await installed(admin, id);
    const restore = replaceIdentityProvider(
      providerWith({ deleteClient: () => Promise.reject(new AppError('30-7004')) }),
    );
    try {
      expectProblem(await admin.call('uninstallApp', { params: { bundle_id: id } }), 500, '80-8043');
    } finally {
      restore();
    }
    expect((await admin.call('getAppInstall', { params: { bundle_id: id } })).body.status).toBe('INSTALLED');
    expect((await admin.call('uninstallApp', { params: { bundle_id: id } })).status).toBe(204);
  });
});
