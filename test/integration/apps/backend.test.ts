/**
 * An app backend hosted elsewhere (docs/apps.md, "App backends"), over HTTP against a real
 * local server (test/fakes/app-backend.ts): a `call_backend` run POSTs the action's input and
 * the run's context, never the tenant's credentials, and keeps the answer as the run's result;
 * a backend refused by the outbound guard, refusing connections, failing (5xx), answering
 * beyond the size bound or not in JSON is 502 80-8032, one that does not answer in time 504
 * 80-8036. Publishing refuses a backend that is not https (80-8037).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../support/api-client';
import { closedLocalPort, type ClosedPort } from '../../support/closed-port';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { startAppBackend, type AppBackendFake } from '../../fakes/app-backend';
import { appsClient, bundleWith, expectProblem, installed, opened, sampleFiles, sampleManifest } from './app-support';

const TENANT = 'apps-backend';
/** CONNECTOR_TIMEOUT_MS of this twin: the bound of every backend call. */
const CALL_LIMIT_MS = 1500;

let env: TestTwin;
let admin: ApiClient;
let backend: AppBackendFake;
/** A port nobody listens on (nor can, while it is held), allow-listed like the fake's. */
let closed: ClosedPort;
let closedPort: number;

beforeAll(async () => {
  backend = await startAppBackend();
  closed = await closedLocalPort();
  closedPort = closed.port;
  env = await startTestTwin({
    allowOutbound: [`127.0.0.1:${backend.port}`, `127.0.0.1:${closedPort}`],
    environment: { CONNECTOR_TIMEOUT_MS: String(CALL_LIMIT_MS) },
  });
  admin = await appsClient(env, TENANT);
});
afterAll(async () => {
  await env?.close();
  await backend?.close();
  await closed?.release();
});

let sequence = 0;

/** A bundle whose backend is `baseUrl` with one call_backend action `greet`, installed and opened. */
async function appWithBackend(baseUrl: string): Promise<{ bundleId: number; sdkToken: string; app: ApiClient }> {
  const manifest = sampleManifest({
    backend: { base_url: baseUrl },
    run_actions: [{ name: 'greet', kind: 'call_backend', path: 'greet' }],
  });
  const bundleId = await bundleWith(admin, `backend-${(sequence += 1)}`, sampleFiles({ 'manifest.json': manifest }));
  await installed(admin, bundleId);
  const { sdkToken } = await opened(admin, bundleId);
  return { bundleId, sdkToken, app: new ApiClient(env.twin.apiUrl, sdkToken, TENANT) };
}

const greet = (app: ApiClient, bundleId: number) =>
  app.call('startAppRun', { params: { bundle_id: bundleId }, body: { action: 'greet', input: { who: 'ada' } } });

describe('a backend that answers', () => {
  it('gets the input and the run’s context, no credentials; its answer is the run’s result', async () => {
    const { bundleId, sdkToken, app } = await appWithBackend(`${backend.baseUrl}/hooks`);
    backend.behave({ kind: 'answer' });
    const run = await greet(app, bundleId);
    expect(run.status, run.text).toBe(201);
    expect(run.body.status).toBe('COMPLETED');
    const call = backend.calls.at(-1)!;
    expect(call).toMatchObject({ method: 'POST', path: '/hooks/greet' });
    expect(call.body).toEqual({
      input: { who: 'ada' },
      context: {
        tenant_id: TENANT,
        bundle_id: bundleId,
        session_id: run.body.session_id,
        run_id: run.body.run_id,
        action: 'greet',
      },
    });
    expect(call.headers.authorization).toBeUndefined();
    expect(call.headers.cookie).toBeUndefined();
    expect(JSON.stringify(call)).not.toContain(sdkToken.split('.')[2]!);
    expect(run.body.result).toEqual({ greeting: 'hello from the backend', received: call.body });
    const read = await admin.call('getAppRun', { params: { bundle_id: bundleId, run_id: run.body.run_id } });
    expect(read.body).toEqual(run.body);
  });
});

describe('a backend that does not answer usably', () => {
  let bundleId: number;
  let app: ApiClient;
  beforeAll(async () => ({ bundleId, app } = await appWithBackend(backend.baseUrl)));
  afterAll(() => backend.behave({ kind: 'answer' }));

  it('is 80-8032 when it fails (5xx), answers beyond 64 KiB or not in JSON', async () => {
    backend.behave({ kind: 'fail' });
    const failed = await greet(app, bundleId);
    expectProblem(failed, 502, '80-8032');
    expect(failed.problem.extraDetails).toMatchObject({ backend_status: 503 });
    backend.behave({ kind: 'oversize', bytes: 70_000 });
    const oversize = await greet(app, bundleId);
    expectProblem(oversize, 502, '80-8032');
    expect(oversize.problem.extraDetails).toMatchObject({ reason: 'answer over 65536 bytes' });
    backend.behave({ kind: 'not-json' });
    const notJson = await greet(app, bundleId);
    expectProblem(notJson, 502, '80-8032');
    expect(notJson.problem.extraDetails).toMatchObject({ reason: 'the answer is not JSON' });
  });

  it('is 80-8036 when it does not answer in time, after the call’s bound and not much later', async () => {
    backend.behave({ kind: 'hang' });
    const calls = backend.calls.length;
    const started = Date.now();
    const hung = await greet(app, bundleId);
    const waited = Date.now() - started;
    expectProblem(hung, 504, '80-8036');
    expect(backend.calls.length).toBe(calls + 1);
    expect(waited).toBeGreaterThanOrEqual(CALL_LIMIT_MS);
    expect(waited).toBeLessThan(CALL_LIMIT_MS + 5000);
  });
});

describe('a backend the service cannot reach', () => {
  it('is 80-8032 when nothing listens at its port', async () => {
    const { bundleId, app } = await appWithBackend(`http://127.0.0.1:${closedPort}/`);
    const refused = await greet(app, bundleId);
    expectProblem(refused, 502, '80-8032');
    expect(refused.problem.extraDetails).toMatchObject({ reason: 'connection_refused' });
  });

  it('is 80-8032 when the outbound guard refuses its address (metadata, loopback name, private range)', async () => {
    for (const baseUrl of ['https://169.254.169.254/latest', 'https://localhost:8443/', 'https://10.0.0.7/']) {
      const { bundleId, app } = await appWithBackend(baseUrl);
      const refused = await greet(app, bundleId);
      expectProblem(refused, 502, '80-8032');
      expect(refused.problem.extraDetails, baseUrl).toMatchObject({ reason: 'refused by the outbound guard' });
    }
  });
});

describe('publishing a backend', () => {
  it('refuses one that is not https, or call_backend actions without one (80-8037)', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          backend: { base_url: 'http://backend.example.com/' },
          run_actions: [{ name: 'greet', kind: 'call_backend', path: 'greet' }],
        },
        'backend.base_url: must be an https:// URL',
      ],
      [
        { run_actions: [{ name: 'greet', kind: 'call_backend', path: 'greet' }] },
        'call_backend actions need a backend',
      ],
      [
        {
          backend: { base_url: 'https://backend.example.com/' },
          run_actions: [{ name: 'greet', kind: 'call_backend', path: '../admin' }],
        },
        'run_actions.0.path',
      ],
    ];
    for (const [changes, named] of cases) {
      const bundleId = await bundleWith(
        admin,
        `refused-backend-${(sequence += 1)}`,
        sampleFiles({ 'manifest.json': sampleManifest(changes) }),
        false,
      );
      const refused = await admin.call('publishAppBundleVersion', {
        params: { bundle_id: bundleId, version_number: 1 },
      });
      expectProblem(refused, 400, '80-8037');
      expect(JSON.stringify(refused.problem.extraDetails), JSON.stringify(changes)).toContain(named);
    }
  });
});
