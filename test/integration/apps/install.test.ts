/**
 * Installs and uninstalls of apps over HTTP, run as jobs (docs/apps.md, shared/apps/install-job.ts):
 * 202 then the job's end read from the status route; parallel installs (80-8017), an uninstall
 * racing an install, an install meeting a running uninstall (80-8042), and provisioning
 * failures rolled back (80-8026, 80-8040, 80-8043). The twin's DynamoDB sits behind a gate
 * (test/support/dynamo-gate.ts) that refuses or holds the identity provider's writes for real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { startDynamoGate, type DynamoGate, type DynamoMatcher } from '../../support/dynamo-gate';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  appsClient,
  bundleWith,
  expectProblem,
  installed,
  sampleFiles,
  sampleManifest,
  settledInstall,
  uninstalled,
} from './app-support';

const TENANT = 'apps-installs';
let gate: DynamoGate;
let env: TestTwin;
let admin: ApiClient;

beforeAll(async () => {
  gate = await startDynamoGate();
  env = await startTestTwin({
    servicePorts: { dynamodb: gate.upstreamPort },
    environment: { AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint },
  });
  admin = await appsClient(env, TENANT);
});
afterAll(async () => {
  await env?.close();
  await gate?.close();
});

/** The write that makes the SDK user of the bundle named `name` (its description is "app <name>"). */
const sdkUserWrite =
  (name: string): DynamoMatcher =>
  ({ operation, text }) =>
    operation === 'TransactWriteItems' && text.includes(`"app ${name}"`);

/** The deletion of the SDK user `clientId`. */
const sdkUserDeletion =
  (clientId: string): DynamoMatcher =>
  ({ operation, text }) =>
    operation === 'DeleteItem' && text.includes(`"${clientId}"`);

/** The tenant's tokens that are the SDK user of the bundle named `name`. */
async function sdkUsersOf(name: string): Promise<number> {
  const tokens = await admin.call('listTokens', { query: { filter: `description eq 'app ${name}'` } });
  expect(tokens.status, tokens.text).toBe(200);
  return tokens.body.total;
}

describe('install and uninstall as jobs', () => {
  it('answers 202 INSTALLING, then the job makes it INSTALLED with its SDK user; uninstall ends NOT_INSTALLED', async () => {
    const id = await bundleWith(admin, 'Installed once');
    const before = await admin.call('getAppInstall', { params: { bundle_id: id } });
    expect(before.body).toMatchObject({ status: 'NOT_INSTALLED', execution: null });
    const accepted = await admin.call('installApp', { body: { bundle_id: id } });
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.headers.get('location')).toMatch(new RegExp(`/apps/installs/${id}$`));
    expect(accepted.body).toMatchObject({
      status: 'INSTALLING',
      sdk_client_id: null,
      execution: { status: 'PENDING' },
    });
    const install = await settledInstall(admin, id);
    expect(install).toMatchObject({
      status: 'INSTALLED',
      enabled: true,
      version_number: 1,
      execution: { status: 'COMPLETED', progress: { stage: 'DONE', percent: 100 } },
    });
    expect(install.execution?.job_id).toMatch(/^install-app-/);
    // The app's SDK user is a token of the tenant, with the manifest's roles.
    const sdkUser = await admin.call('getToken', { params: { client_id: install.sdk_client_id! } });
    expect(sdkUser.body).toMatchObject({ role_ids: ['builtin.viewer'], description: 'app Installed once' });
    expectProblem(await admin.call('installApp', { body: { bundle_id: id } }), 409, '80-8017');

    await uninstalled(admin, id);
    const after = (await admin.call('getAppInstall', { params: { bundle_id: id } })).body;
    expect(after).toMatchObject({ status: 'NOT_INSTALLED', sdk_client_id: null, execution: { status: 'COMPLETED' } });
    expect(after.execution?.job_id).toMatch(/^uninstall-app-/);
    expectProblem(await admin.call('getToken', { params: { client_id: install.sdk_client_id! } }), 404, '10-404');
    expectProblem(await admin.call('uninstallApp', { params: { bundle_id: id } }), 404, '80-8014');
  });

  it('refuses a bundle without a published version (80-8016) or without its links (80-8015), before any job', async () => {
    const unpublished = await bundleWith(admin, 'Never published', sampleFiles(), false);
    const refused = await admin.call('installApp', { body: { bundle_id: unpublished } });
    expectProblem(refused, 409, '80-8016');
    expect(refused.problem.detail).toBe(`Bundle ${unpublished} cannot be installed because it is not published`);

    const manifest = sampleManifest({ required_providers: ['warehouse-a', 'warehouse-b'] });
    const id = await bundleWith(admin, 'Needs providers', sampleFiles({ 'manifest.json': manifest }));
    await admin.call('putAppLink', { params: { link_id: 'warehouse-a' }, body: { details: { account: 'a' } } });
    const unlinked = await admin.call('installApp', { body: { bundle_id: id } });
    expectProblem(unlinked, 409, '80-8015');
    expect(unlinked.problem.detail).toBe(
      'App cannot be installed: the tenant has no configured link for required providers warehouse-b',
    );
    expect((await admin.call('getAppInstall', { params: { bundle_id: id } })).body.status).toBe('NOT_INSTALLED');
    await admin.call('putAppLink', { params: { link_id: 'warehouse-b' }, body: { details: { account: 'b' } } });
    await installed(admin, id);
  });

  it('keeps a viewer from managing apps (10-403) and an installer from granting roles beyond their own', async () => {
    const viewer = await appsClient(env, TENANT, ['viewer'], false);
    expectProblem(await viewer.call('installApp', { body: { bundle_id: 1 } }), 403, '10-403');
    const manifest = sampleManifest({ roles: ['admin'] });
    const id = await bundleWith(admin, 'Wants admin', sampleFiles({ 'manifest.json': manifest }));
    const editor = await appsClient(env, TENANT, ['editor'], false);
    expectProblem(await editor.call('installApp', { body: { bundle_id: id } }), 403, '10-403');
    expect((await admin.call('getAppInstall', { params: { bundle_id: id } })).body.status).toBe('NOT_INSTALLED');
  });
});

describe('races', () => {
  it('lets exactly one of parallel installs win; the others get 80-8017', async () => {
    const id = await bundleWith(admin, 'Raced install');
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => admin.call('installApp', { body: { bundle_id: id } })),
    );
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(1);
    for (const lost of answers.filter((answer) => answer.status !== 202)) expectProblem(lost, 409, '80-8017');
    expect((await settledInstall(admin, id)).status).toBe('INSTALLED');
    expect(await sdkUsersOf('Raced install')).toBe(1);
  });

  it('refuses an install (80-8017) and an uninstall (80-8014) while an install job runs', async () => {
    const id = await bundleWith(admin, 'Held install');
    const held = gate.hold(sdkUserWrite('Held install'));
    expect((await admin.call('installApp', { body: { bundle_id: id } })).status).toBe(202);
    await held.arrived;
    try {
      const status = (await admin.call('getAppInstall', { params: { bundle_id: id } })).body;
      expect(status).toMatchObject({ status: 'INSTALLING', execution: { status: 'IN_PROGRESS' } });
      expectProblem(await admin.call('installApp', { body: { bundle_id: id } }), 409, '80-8017');
      expectProblem(await admin.call('uninstallApp', { params: { bundle_id: id } }), 404, '80-8014');
    } finally {
      held.release();
    }
    expect((await settledInstall(admin, id)).status).toBe('INSTALLED');
  });

  it('answers 80-8042 to an install while the uninstall job runs, then installs once it ended', async () => {
    const id = await bundleWith(admin, 'Held uninstall');
    const { sdk_client_id: sdkClientId } = await installed(admin, id);
    const held = gate.hold(sdkUserDeletion(sdkClientId!));
    const uninstall = await admin.call('uninstallApp', { params: { bundle_id: id } });
    expect(uninstall.status, uninstall.text).toBe(202);
    await held.arrived;
    try {
      const status = (await admin.call('getAppInstall', { params: { bundle_id: id } })).body;
      expect(status).toMatchObject({ status: 'UNINSTALLING', execution: { status: 'IN_PROGRESS' } });
      const refused = await admin.call('installApp', { body: { bundle_id: id } });
      expectProblem(refused, 409, '80-8042');
      expectProblem(await admin.call('uninstallApp', { params: { bundle_id: id } }), 409, '80-8042');
    } finally {
      held.release();
    }
    expect((await settledInstall(admin, id)).status).toBe('NOT_INSTALLED');
    await installed(admin, id);
  });

  it('races an uninstall against an install: each ends in a state the other respects', async () => {
    const id = await bundleWith(admin, 'Raced uninstall');
    await installed(admin, id);
    const [uninstall, reinstall] = await Promise.all([
      admin.call('uninstallApp', { params: { bundle_id: id } }),
      admin.call('installApp', { body: { bundle_id: id } }),
    ]);
    expect(uninstall.status, uninstall.text).toBe(202);
    // The install met the app still installed (80-8017), being uninstalled (80-8042), or gone: a new install.
    if (reinstall.status !== 202) expect(['80-8017', '80-8042']).toContain(reinstall.problem.code);
    const settled = await settledInstall(admin, id);
    expect(settled.status).toBe(reinstall.status === 202 ? 'INSTALLED' : 'NOT_INSTALLED');
    expect(await sdkUsersOf('Raced uninstall')).toBe(reinstall.status === 202 ? 1 : 0);
  });
});

describe('provisioning failures, rolled back', () => {
  it('leaves the install FAILED with 80-8026 when the SDK user’s write is refused, and installs again', async () => {
    const id = await bundleWith(admin, 'Store refuses');
    const lift = gate.refuse(sdkUserWrite('Store refuses'));
    try {
      expect((await admin.call('installApp', { body: { bundle_id: id } })).status).toBe(202);
      const failed = await settledInstall(admin, id);
      expect(failed).toMatchObject({
        status: 'FAILED',
        sdk_client_id: null,
        execution: { status: 'FAILED', error: { code: '80-8026' } },
      });
    } finally {
      lift();
    }
    expect(await sdkUsersOf('Store refuses')).toBe(0);
    expectProblem(await admin.call('startAppSession', { params: { bundle_id: id }, body: {} }), 404, '80-8014');
    await installed(admin, id);
    expect(await sdkUsersOf('Store refuses')).toBe(1);
  });

  it('leaves the install FAILED with 80-8040 when the SDK user cannot be read back, deleting what was made', async () => {
    const id = await bundleWith(admin, 'User lost');
    let made: string | undefined;
    // The store takes the SDK user's write, then answers its read with nothing.
    const lift = gate.answer(({ operation, text }) => {
      if (operation === 'TransactWriteItems' && text.includes('"app User lost"'))
        made = /"client_id":\{"S":"([^"]+)"\}/.exec(text)?.[1];
      return operation === 'GetItem' && made !== undefined && text.includes(`"${made}"`);
    }, {});
    try {
      expect((await admin.call('installApp', { body: { bundle_id: id } })).status).toBe(202);
      const failed = await settledInstall(admin, id);
      expect(failed).toMatchObject({ status: 'FAILED', execution: { error: { code: '80-8040' } } });
    } finally {
      lift();
    }
    expect(made).toBeDefined();
    expectProblem(await admin.call('getToken', { params: { client_id: made! } }), 404, '10-404');
    expect(await sdkUsersOf('User lost')).toBe(0);
  });

  it('puts an uninstall back to INSTALLED with 80-8043 when the SDK user’s deletion is refused', async () => {
    const id = await bundleWith(admin, 'Undeletable user');
    const { sdk_client_id: sdkClientId } = await installed(admin, id);
    const params = { bundle_id: id, key: 'kept' };
    expect((await admin.call('putAppValue', { params, body: { value: 1 } })).status).toBe(200);
    const lift = gate.refuse(sdkUserDeletion(sdkClientId!));
    try {
      expect((await admin.call('uninstallApp', { params: { bundle_id: id } })).status).toBe(202);
      const restored = await settledInstall(admin, id);
      expect(restored).toMatchObject({
        status: 'INSTALLED',
        sdk_client_id: sdkClientId,
        execution: { status: 'FAILED', error: { code: '80-8043' } },
      });
    } finally {
      lift();
    }
    // Nothing of the app went: its SDK user, its values.
    expect((await admin.call('getToken', { params: { client_id: sdkClientId! } })).status).toBe(200);
    expect((await admin.call('getAppValue', { params })).body).toMatchObject({ value: 1 });
    await uninstalled(admin, id);
    expect(await sdkUsersOf('Undeletable user')).toBe(0);
  });
});
