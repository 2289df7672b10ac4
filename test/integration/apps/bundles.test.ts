/**
 * App bundles over HTTP (docs/apps.md): the toggle, bundle versions and publishing (80-8003,
 * 80-8012, 80-8016, 80-8037), links (80-8002, 80-8018, 80-8019) and tenant isolation. Installs
 * and their jobs: install.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { appsClient, bundleWith, expectProblem, fileOf, sampleFiles, sampleManifest } from './app-support';

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
