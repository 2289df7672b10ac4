/**
 * pricing_dim connections over HTTP against the DIM fake and its OAuth server: the transfers
 * toggle, test connection (unsaved and stored) with a token and the DIM's cheap call, and each
 * code from its real cause in the fake; the client secret is never echoed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hangingEndpoint, type FakeEndpoint } from '../../fakes/object-store';
import { startPricingDim, type PricingDimFake } from '../../../infra/local/fakes/pricing-dim';
import type { ApiClient, RequestBody } from '../../support/api-client';
import { closedLocalPort, type ClosedPort } from '../../support/closed-port';
import { startTestTwin, type TestTwin } from '../../support/harness';

type DimRequest = Extract<RequestBody<'createConnection'>, { type: 'pricing_dim' }>;

let dim: PricingDimFake;
/** Nobody listens there, nor can while it is held. */
let closed: ClosedPort;
let closedPort: number;
let hanging: FakeEndpoint;
let env: TestTwin;
let api: ApiClient;
let sequence = 0;

const portOf = (url: string) => new URL(url).port;

beforeAll(async () => {
  dim = await startPricingDim();
  closed = await closedLocalPort();
  closedPort = closed.port;
  hanging = await hangingEndpoint();
  env = await startTestTwin({
    allowOutbound: [dim.tokenUrl, dim.host, `http://127.0.0.1:${closedPort}`, hanging.endpoint].map(
      (url) => `127.0.0.1:${portOf(url)}`,
    ),
    environment: { CONNECTOR_TIMEOUT_MS: '3000' },
  });
  api = env.admin;
});

afterEach(() => dim.fail(undefined));

afterAll(async () => {
  await env?.close();
  await dim?.stop();
  await hanging?.close();
  await closed?.release();
});

function request(options: { secret?: string; host?: string } = {}): DimRequest {
  return {
    name: `dim ${process.pid}-${++sequence}`,
    type: 'pricing_dim',
    auth: {
      auth_type: 'oauth_client_credentials',
      token_url: dim.tokenUrl,
      client_id: dim.clientId,
      client_secret: options.secret ?? dim.clientSecret,
      scope: dim.scope,
      host: options.host ?? dim.host,
    },
  };
}

async function expectProblem(options: { secret?: string; host?: string }, status: number, code: string) {
  const response = await api.call('testConnection', { body: request(options) });
  expect(response.status, response.text).toBe(status);
  expect(response.problem.code, response.text).toBe(code);
  expect(response.text).not.toContain(options.secret ?? dim.clientSecret);
  return response.problem;
}

async function toggle(strategy: 'on' | 'off') {
  const response = await env.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: 'transfers', tenant_id: env.admin.tenantId! },
    body: { strategy },
  });
  expect(response.status, response.text).toBe(200);
}

describe('the transfers toggle', () => {
  it('is off by default: a test answers 10-1501 naming it, and neither server hears anything', async () => {
    const [calls, tokens] = [dim.received.calls.length, dim.tokenRequests.length];
    const problem = await expectProblem({}, 501, '10-1501');
    expect(problem.detail).toBe('Feature disabled unless feature flag transfers is on');
    expect([dim.received.calls.length, dim.tokenRequests.length]).toEqual([calls, tokens]);
  });
});

describe('with the toggle on', () => {
  beforeAll(() => toggle('on'));

  it('tests an unsaved configuration with a token and GET /ping, echoing no secret', async () => {
    const [calls, tokens] = [dim.received.calls.length, dim.tokenRequests.length];
    const response = await api.call('testConnection', { body: request() });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ type: 'pricing_dim', read: true, write: true });
    expect(response.text).not.toContain(dim.clientSecret);
    expect(dim.tokenRequests.slice(tokens)).toEqual([
      { authentication: 'basic', clientId: dim.clientId, grantType: 'client_credentials', scope: dim.scope },
    ]);
    expect(dim.received.calls.slice(calls)).toEqual(['GET /ping']);
  });

  it('tests a stored connection with its stored secret', async () => {
    const created = await api.call('createConnection', { body: request() });
    expect(created.status, created.text).toBe(201);
    const calls = dim.received.calls.length;
    const stored = await api.call('testStoredConnection', {
      params: { connection_id: created.body.id },
      body: { type: 'pricing_dim' },
    });
    expect(stored.status, stored.text).toBe(200);
    expect(stored.text).not.toContain(dim.clientSecret);
    expect(dim.received.calls.slice(calls)).toEqual(['GET /ping']);
  });

  it('30-4102 when the token server answers without a token', async () => {
    await dim.fail({ kind: 'no-token' });
    const problem = await expectProblem({}, 400, '30-4102');
    expect(problem.extraDetails).toMatchObject({ cause_code: '30-1206' });
  });

  it('30-4005 when the token server refuses the secret, or the DIM the token', async () => {
    await expectProblem({ secret: 'not-the-dim-secret' }, 401, '30-4005');
    await dim.fail({ kind: 'unauthorized' });
    await expectProblem({}, 401, '30-4005');
  });

  it('30-4006 naming the host when nothing listens there', async () => {
    const host = `http://127.0.0.1:${closedPort}`;
    const problem = await expectProblem({ host }, 400, '30-4006');
    expect(problem.detail).toBe(`Cannot connect; check endpoint 127.0.0.1:${closedPort}`);
    expect(problem.extraDetails).toMatchObject({ provider_error: 'connection_refused' });
  });

  it('30-4007 when the DIM fails or answers something that is not the protocol', async () => {
    await dim.fail({ kind: 'server-error' });
    const failing = await expectProblem({}, 500, '30-4007');
    expect(failing.extraDetails).toMatchObject({ provider_status: 500, provider_error: 'internal' });
    expect(JSON.stringify(failing)).not.toContain('boom');
    await dim.fail({ kind: 'bad-json' });
    const unparsed = await expectProblem({}, 500, '30-4007');
    expect(unparsed.extraDetails).toMatchObject({ provider_status: 200, reason: 'the answer is not a ping answer' });
  });

  it('30-4007 with provider_error timeout when the DIM accepts and never answers', async () => {
    const problem = await expectProblem({ host: hanging.endpoint }, 500, '30-4007');
    expect(problem.extraDetails).toMatchObject({ provider_error: 'timeout' });
    expect(hanging.hits()).toBeGreaterThan(0);
  });
});
