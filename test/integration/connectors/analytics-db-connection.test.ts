/**
 * analytics_db connection tests over HTTP against the BigQuery fake and its Google token
 * services: a readable dataset passes; a missing dataset is 30-1414, a refused key 30-1416, an
 * account without access 30-1417, another failure 30-1413 — each from a real answer of the fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BigQueryFake } from '../../fakes/bigquery';
import type { ApiClient, RequestBody } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

const PROJECT = 'acme-analytics';
const TIMEOUT_MS = 700;

type AnalyticsDbRequest = Extract<RequestBody<'testConnection'>, { type: 'analytics_db' }>;

let bigquery: BigQueryFake;
let env: TestTwin;
let api: ApiClient;
let loader: { readonly email: string; readonly keyJson: string };
let sequence = 0;

beforeAll(async () => {
  bigquery = await BigQueryFake.start();
  loader = bigquery.auth.addServiceAccount({ project: PROJECT });
  bigquery.addDataset(PROJECT, 'sales', [loader.email]);
  bigquery.allowDatasetListing(PROJECT, loader.email);
  env = await startTestTwin({
    allowOutbound: [bigquery.allowOutbound],
    environment: { ...bigquery.environment, CONNECTOR_TIMEOUT_MS: String(TIMEOUT_MS) },
  });
  api = env.admin;
});

afterAll(async () => {
  await env?.close();
  await bigquery?.close();
});

function request(keyJson: string, datasetId?: string): AnalyticsDbRequest {
  return {
    name: `bq ${process.pid}-${++sequence}`,
    type: 'analytics_db',
    auth: { auth_type: 'service_account_key', file_name: 'key.json', service_account_key_json: keyJson },
    ...(datasetId === undefined ? {} : { dataset_id: datasetId }),
  };
}

async function expectProblem(body: AnalyticsDbRequest, status: number, code: string) {
  const response = await api.call('testConnection', { body });
  expect(response.status, response.text).toBe(status);
  expect(response.problem.code).toBe(code);
  return response.problem;
}

describe('analytics_db connection test', () => {
  it('passes for a readable dataset, and without a dataset when the project’s datasets may be listed', async () => {
    const before = bigquery.requests.length;
    const withDataset = await api.call('testConnection', { body: request(loader.keyJson, 'sales') });
    expect(withDataset.status, withDataset.text).toBe(200);
    const withoutDataset = await api.call('testConnection', { body: request(loader.keyJson) });
    expect(withoutDataset.status, withoutDataset.text).toBe(200);
    expect(bigquery.requests.slice(before)).toEqual([
      `/bigquery/v2/projects/${PROJECT}/datasets/sales`,
      `/bigquery/v2/projects/${PROJECT}/datasets`,
    ]);
  });

  it('tests a stored connection with its stored key and dataset', async () => {
    const created = await api.call('createConnection', {
      body: { ...request(loader.keyJson, 'sales'), name: `bq stored ${process.pid}` },
    });
    expect(created.status, created.text).toBe(201);
    const before = bigquery.requests.length;
    const stored = await api.call('testStoredConnection', {
      params: { connection_id: created.body.id },
      body: { type: 'analytics_db' },
    });
    expect(stored.status, stored.text).toBe(200);
    expect(bigquery.requests.slice(before)).toEqual([`/bigquery/v2/projects/${PROJECT}/datasets/sales`]);
  });

  it('30-1414 for a dataset that does not exist', async () => {
    const problem = await expectProblem(request(loader.keyJson, 'gone'), 404, '30-1414');
    expect(problem.detail).toBe('Dataset gone does not exist or is not accessible');
  });

  it('30-1416 when the token endpoint refuses the key', async () => {
    const retired = bigquery.auth.addServiceAccount({ project: PROJECT, name: 'retired' });
    bigquery.auth.disable(retired.email);
    const problem = await expectProblem(request(retired.keyJson, 'sales'), 400, '30-1416');
    expect(problem.extraDetails).toEqual({
      step: 'service_account',
      provider_error: 'invalid_grant',
      provider_status: 400,
    });
  });

  it('30-1417 for an account without access to the dataset or to the project’s datasets', async () => {
    const outsider = bigquery.auth.addServiceAccount({ project: PROJECT, name: 'outsider' });
    const denied = await expectProblem(request(outsider.keyJson, 'sales'), 403, '30-1417');
    expect(denied.extraDetails).toEqual({ provider_error: 'accessDenied', provider_status: 403 });
    await expectProblem(request(outsider.keyJson), 403, '30-1417');
  });

  it('30-1413 with the provider’s reason for another failure, and when BigQuery stays silent', async () => {
    bigquery.inject('unavailable', /\/datasets\/sales$/);
    const problem = await expectProblem(request(loader.keyJson, 'sales'), 400, '30-1413');
    expect(problem.extraDetails).toEqual({ provider_error: 'backendError', provider_status: 503 });
    bigquery.inject('hang', /\/datasets\/sales$/);
    const started = Date.now();
    await expectProblem(request(loader.keyJson, 'sales'), 400, '30-1413');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 4);
  });
});
