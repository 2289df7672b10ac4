/**
 * Installed apps at work over HTTP (docs/apps.md): sessions and their SDK tokens (80-8014,
 * 80-8028, 80-8031, 80-8035), activity reports (80-8024, 80-8027), runs (80-8022, 80-8029,
 * 80-8030, 80-8034), assets under their headers (80-8033), the key-value store (80-8020,
 * 80-8021) and the isolation of one app and one tenant from another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createBucketSource, createObjectStoreConnection, createTable } from '../../support/imports';
import { appsClient, bundleWith, expectProblem, installed, opened, uninstalled } from './app-support';

let env: TestTwin;
let admin: ApiClient;
let bundleId: number;
let tableId: number;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'] });
  admin = await appsClient(env, 'apps-sessions');
  tableId = await createTable(
    admin,
    await createBucketSource(admin, await createObjectStoreConnection(admin, env), 'landing/sales/'),
  );
  bundleId = await bundleWith(admin, 'Table lister');
  await installed(admin, bundleId);
});
afterAll(() => env?.close());

/** A client that calls as the app: with the SDK token of a session. */
const asApp = (sdkToken: string) => new ApiClient(env.twin.apiUrl, sdkToken, 'apps-sessions');

describe('sessions', () => {
  it('opens the app: a session of the published version and an SDK token with both contexts', async () => {
    const started = await admin.call('startAppSession', {
      params: { bundle_id: bundleId },
      body: { return_to: '/datasets?view=list#top' },
    });
    expect(started.status, started.text).toBe(201);
    expect(started.body).toMatchObject({
      bundle_id: bundleId,
      version_number: 1,
      return_to: '/datasets?view=list#top',
    });
    expect(started.body.open_url).toBe(
      `apps/installs/${bundleId}/sessions/${started.body.session_id}/assets/index.html#sdk_token=${started.body.sdk_token}`,
    );
    const [, payload] = started.body.sdk_token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(claims).toMatchObject({ app: bundleId, sid: started.body.session_id, roles: ['viewer'] });
    const read = await admin.call('getAppSession', {
      params: { bundle_id: bundleId, session_id: started.body.session_id },
    });
    expect(read.body.started_by.id).not.toBe(claims['sub']);
  });

  it('accepts only same-origin relative return_to paths (80-8028), every spelling of elsewhere refused', async () => {
    const elsewhere = [
      'https://evil.example/',
      'http:evil.example',
      'javascript:alert(1)',
      'data:text/html,x',
      '//evil.example/',
      '///evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '\\/evil.example',
      '/%2Fevil.example',
      '%2F%2Fevil.example',
      '/%5Cevil.example',
      '/%252F%252Fevil.example',
      '%68ttps://evil.example',
      ' /home',
      '/\thome',
      '/\n/evil.example',
      'home',
      '',
      '/%E0%A4%A',
    ];
    for (const returnTo of elsewhere) {
      const refused = await admin.call('startAppSession', {
        params: { bundle_id: bundleId },
        body: { return_to: returnTo },
      });
      expect(refused.status, JSON.stringify(returnTo)).toBe(400);
      expect(refused.problem.code, JSON.stringify(returnTo)).toBe('80-8028');
    }
    for (const returnTo of ['/', '/datasets/3', '/search?q=a%20b', '/a/../b'])
      expect(
        (await admin.call('startAppSession', { params: { bundle_id: bundleId }, body: { return_to: returnTo } }))
          .status,
      ).toBe(201);
  });

  it('answers 80-8014 for an app not installed and 80-8031 for a session the tenant does not have', async () => {
    const notInstalled = await bundleWith(admin, 'Not installed here');
    expectProblem(
      await admin.call('startAppSession', { params: { bundle_id: notInstalled }, body: {} }),
      404,
      '80-8014',
    );
    const missing = await admin.call('getAppSession', {
      params: { bundle_id: bundleId, session_id: 'apps-sessions.0123456789abcdef0123456789abcdef' },
    });
    expectProblem(missing, 404, '80-8031');
    const { sessionId } = await opened(admin, bundleId);
    const other = await appsClient(env, 'apps-sessions-other');
    expectProblem(
      await other.call('getAppSession', { params: { bundle_id: bundleId, session_id: sessionId } }),
      404,
      '80-8031',
    );
  });

  it('answers 80-8035 once the tenant deleted the app’s SDK user', async () => {
    const id = await bundleWith(admin, 'Loses its user');
    await installed(admin, id);
    const { sdk_client_id } = (await admin.call('getAppInstall', { params: { bundle_id: id } })).body;
    expect((await admin.call('deleteToken', { params: { client_id: sdk_client_id! } })).status).toBe(204);
    const refused = await admin.call('startAppSession', { params: { bundle_id: id }, body: {} });
    expectProblem(refused, 500, '80-8035');
  });
});

describe('activity reports', () => {
  it('records the heartbeat of the session the SDK token was issued for', async () => {
    const { sessionId, sdkToken } = await opened(admin, bundleId);
    const before = await admin.call('getAppSession', { params: { bundle_id: bundleId, session_id: sessionId } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const reported = await asApp(sdkToken).call('reportAppSessionActivity', {
      params: { bundle_id: bundleId, session_id: sessionId },
    });
    expect(reported.status, reported.text).toBe(200);
    expect(reported.body.last_activity_date > before.body.last_activity_date).toBe(true);
  });

  it('needs the app context of the path’s app (80-8027) and the session context of its session (80-8024)', async () => {
    const first = await opened(admin, bundleId);
    const second = await opened(admin, bundleId);
    const params = { bundle_id: bundleId, session_id: first.sessionId };
    expectProblem(await admin.call('reportAppSessionActivity', { params }), 400, '80-8027');
    const otherSession = await asApp(second.sdkToken).call('reportAppSessionActivity', { params });
    expectProblem(otherSession, 400, '80-8024');
    const otherApp = await bundleWith(admin, 'Another app');
    await installed(admin, otherApp);
    const foreign = await opened(admin, otherApp);
    expectProblem(await asApp(foreign.sdkToken).call('reportAppSessionActivity', { params }), 400, '80-8027');
  });
});

describe('runs', () => {
  it('runs a declared action with the app’s credentials, keeps it, and answers 80-8034 for another id', async () => {
    const { sdkToken } = await opened(admin, bundleId);
    const run = await asApp(sdkToken).call('startAppRun', {
      params: { bundle_id: bundleId },
      body: { action: 'list-tables' },
    });
    expect(run.status, run.text).toBe(201);
    expect(run.body).toMatchObject({ status: 'COMPLETED', action: 'list-tables', error: null });
    expect(run.body.result).toEqual({ tables: [{ id: tableId, name: expect.any(String) }] });
    const read = await admin.call('getAppRun', { params: { bundle_id: bundleId, run_id: run.body.run_id } });
    expect(read.body).toEqual(run.body);
    expectProblem(
      await admin.call('getAppRun', { params: { bundle_id: bundleId, run_id: 'no-such-run' } }),
      404,
      '80-8034',
    );
    const undeclared = await asApp(sdkToken).call('startAppRun', {
      params: { bundle_id: bundleId },
      body: { action: 'drop-all' },
    });
    expectProblem(undeclared, 400, '10-1400');
  });

  it('needs a session context (80-8022)', async () => {
    const refused = await admin.call('startAppRun', {
      params: { bundle_id: bundleId },
      body: { action: 'list-tables' },
    });
    expectProblem(refused, 400, '80-8022');
  });

  it('refuses a session opened by someone without app:run (80-8030)', async () => {
    const viewer = await appsClient(env, 'apps-sessions', ['viewer'], false);
    const { sdkToken } = await opened(viewer, bundleId);
    const refused = await asApp(sdkToken).call('startAppRun', {
      params: { bundle_id: bundleId },
      body: { action: 'list-tables' },
    });
    expectProblem(refused, 403, '80-8030');
  });

  it('refuses runs of a disabled app (80-8029) until it is enabled again', async () => {
    const { sdkToken } = await opened(admin, bundleId);
    expect((await admin.call('disableApp', { params: { bundle_id: bundleId } })).body.enabled).toBe(false);
    try {
      const refused = await asApp(sdkToken).call('startAppRun', {
        params: { bundle_id: bundleId },
        body: { action: 'list-tables' },
      });
      expectProblem(refused, 403, '80-8029');
      expect(refused.problem.detail).toBe(`App ${bundleId} is disabled and cannot be run`);
    } finally {
      expect((await admin.call('enableApp', { params: { bundle_id: bundleId } })).body.enabled).toBe(true);
    }
    const run = await asApp(sdkToken).call('startAppRun', {
      params: { bundle_id: bundleId },
      body: { action: 'list-tables' },
    });
    expect(run.status).toBe(201);
  });
});

describe('assets', () => {
  it('serves the version’s files under a strict content security policy, without a bearer token', async () => {
    const { sessionId } = await opened(admin, bundleId);
    const page = await env.anonymous.raw('GET', `/apps/installs/${bundleId}/sessions/${sessionId}/assets/index.html`);
    expect(page.status, page.text).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<script src="app.js" defer></script>');
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const script = await env.anonymous.raw('GET', `/apps/installs/${bundleId}/sessions/${sessionId}/assets/app.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('answers 80-8033 for a file the version lacks and 80-8031 for an unknown session', async () => {
    const { sessionId } = await opened(admin, bundleId);
    for (const name of ['missing.js', '..%2Fmanifest.json', '.env']) {
      const missing = await env.anonymous.raw('GET', `/apps/installs/${bundleId}/sessions/${sessionId}/assets/${name}`);
      expectProblem(missing, 404, '80-8033');
    }
    for (const session of ['apps-sessions.00000000000000000000000000000000', 'not-a-session'])
      expectProblem(
        await env.anonymous.raw('GET', `/apps/installs/${bundleId}/sessions/${session}/assets/index.html`),
        404,
        '80-8031',
      );
  });
});

describe('the key-value store', () => {
  it('writes, reads and deletes values; 80-8020 for a missing key, 80-8021 beyond 65536 bytes', async () => {
    const { sdkToken } = await opened(admin, bundleId);
    const app = asApp(sdkToken);
    const params = { bundle_id: bundleId, key: 'settings' };
    expectProblem(await app.call('getAppValue', { params }), 404, '80-8020');
    const put = await app.call('putAppValue', { params, body: { value: { theme: 'dark', columns: [1, 2] } } });
    expect(put.status, put.text).toBe(200);
    expect((await admin.call('getAppValue', { params })).body.value).toEqual({ theme: 'dark', columns: [1, 2] });
    const large = await app.call('putAppValue', { params, body: { value: 'x'.repeat(65_535) } });
    expectProblem(large, 400, '80-8021');
    expect(large.problem.detail).toBe('Value exceeds the maximum size of 65536 bytes');
    expect((await app.call('putAppValue', { params, body: { value: 'x'.repeat(65_534) } })).status).toBe(200);
    expect((await app.call('deleteAppValue', { params })).status).toBe(204);
    expectProblem(await app.call('deleteAppValue', { params }), 404, '80-8020');
  });

  it('keeps each app to its own store and each tenant to its own apps (80-8014)', async () => {
    const otherApp = await bundleWith(admin, 'Neighbour app');
    await installed(admin, otherApp);
    const { sdkToken } = await opened(admin, bundleId);
    const foreign = await asApp(sdkToken).call('getAppValue', { params: { bundle_id: otherApp, key: 'k' } });
    expectProblem(foreign, 404, '80-8014');
    const other = await appsClient(env, 'apps-sessions-other');
    expectProblem(
      await other.call('putAppValue', { params: { bundle_id: bundleId, key: 'k' }, body: { value: 1 } }),
      404,
      '80-8014',
    );
  });

  it('goes with the install: values of an uninstalled and reinstalled app are gone', async () => {
    const id = await bundleWith(admin, 'Forgets on uninstall');
    await installed(admin, id);
    const params = { bundle_id: id, key: 'kept' };
    expect((await admin.call('putAppValue', { params, body: { value: true } })).status).toBe(200);
    await uninstalled(admin, id);
    expectProblem(await admin.call('getAppValue', { params }), 404, '80-8014');
    await installed(admin, id);
    expectProblem(await admin.call('getAppValue', { params }), 404, '80-8020');
  });
});
