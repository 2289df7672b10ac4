/**
 * cloud_store failures over HTTP, each from a real answer (or silence) of the GCS fake and its
 * Google token services: missing bucket and path, access denied, project-level listing denied,
 * unknown project, rate limit (429, and retried by the import job), timeouts, token exchanges
 * that fail, paths outside the restriction, and folders without CSV.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, RequestBody } from '../../support/api-client';
import {
  PROJECT,
  createConnection,
  federatedRequest,
  serviceAccountRequest,
  startCloudStoreWorld,
  type CloudStoreWorld,
} from '../../support/cloud-store';
import { createBucketSource, createTable, importAndWait } from '../../support/imports';
import type { GcsFake } from '../../fakes/gcs';

/** The connector timeout of this file: short, so silent calls end quickly. */
const TIMEOUT_MS = 700;

let world: CloudStoreWorld;
let api: ApiClient;
let gcs: GcsFake;

beforeAll(async () => {
  world = await startCloudStoreWorld({ CONNECTOR_TIMEOUT_MS: String(TIMEOUT_MS) });
  ({ api, gcs } = world);
});

afterAll(async () => {
  await world?.close();
});

type TestRequest = RequestBody<'testConnection'>;

async function expectProblem(request: TestRequest, status: number, code: string) {
  const response = await api.call('testConnection', { body: request });
  expect(response.status, response.text).toBe(status);
  expect(response.problem.code).toBe(code);
  return response.problem;
}

describe('connection test failures', () => {
  it('30-1302 for a bucket that does not exist, 30-1305 for a folder with nothing in it', async () => {
    const missingBucket = await expectProblem(
      serviceAccountRequest(world.loader.keyJson, 'acme_gone/'),
      400,
      '30-1302',
    );
    expect(missingBucket.detail).toBe('Bucket acme_gone does not exist or is not accessible');
    const missingPath = await expectProblem(
      serviceAccountRequest(world.loader.keyJson, 'acme_raw/nowhere/'),
      400,
      '30-1305',
    );
    expect(missingPath.detail).toBe('Path acme_raw/nowhere/ does not exist in the bucket');
  });

  it('30-1301 for an account without access to the bucket, 30-1308 when it may not list the project’s buckets', async () => {
    const outsider = gcs.auth.addServiceAccount({ project: PROJECT, name: 'outsider' });
    const denied = await expectProblem(serviceAccountRequest(outsider.keyJson, 'acme_raw/landing/'), 403, '30-1301');
    expect(denied.extraDetails).toEqual({ provider_error: 'forbidden', provider_status: 403 });
    await expectProblem(serviceAccountRequest(outsider.keyJson), 403, '30-1308');
  });

  it('30-1309 when the key’s project is unknown to Cloud Storage', async () => {
    const stranger = gcs.auth.addServiceAccount({ project: 'ghost-project-1' });
    await expectProblem(serviceAccountRequest(stranger.keyJson), 400, '30-1309');
  });

  it('30-1301 naming the token endpoint’s refusal when the key is no longer valid', async () => {
    const retired = gcs.auth.addServiceAccount({ project: PROJECT, name: 'retired' });
    gcs.auth.disable(retired.email);
    const problem = await expectProblem(serviceAccountRequest(retired.keyJson, 'acme_raw/landing/'), 403, '30-1301');
    expect(problem.extraDetails).toEqual({
      step: 'service_account',
      provider_error: 'invalid_grant',
      provider_status: 400,
    });
    expect(JSON.stringify(problem)).not.toContain('account not found');
  });

  it('30-1323 when any step of the workload identity exchange fails, naming the step', async () => {
    const wrongSecret = await expectProblem(
      federatedRequest(world, { client_secret: 'not-the-secret' }),
      400,
      '30-1323',
    );
    expect(wrongSecret.extraDetails).toEqual({
      step: 'identity_provider',
      provider_error: 'invalid_client',
      provider_status: 401,
    });
    const wrongAudience = await expectProblem(
      federatedRequest(world, {
        audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/other/providers/x',
      }),
      400,
      '30-1323',
    );
    expect(wrongAudience.extraDetails).toEqual({ step: 'sts', provider_error: 'invalid_target', provider_status: 400 });
    const otherAccount = await expectProblem(
      federatedRequest(world, { service_account_email: `someone@${PROJECT}.iam.gserviceaccount.com` }),
      400,
      '30-1323',
    );
    expect(otherAccount.extraDetails).toEqual({
      step: 'impersonation',
      provider_error: 'PERMISSION_DENIED',
      provider_status: 403,
    });
    // The federated identity itself passes.
    expect((await api.call('testConnection', { body: federatedRequest(world) })).status).toBe(200);
  });

  it('429 30-1307 when Cloud Storage limits the rate; 408 30-1303 when it stays silent, within the bound', async () => {
    gcs.inject('rate-limit', /^\/storage\/v1\/b\/acme_raw\/o\?/);
    const limited = await expectProblem(
      serviceAccountRequest(world.loader.keyJson, 'acme_raw/landing/'),
      429,
      '30-1307',
    );
    expect(limited.detail).toBe('Cloud-storage rate limit exceeded; retry after a short wait');

    gcs.inject('hang', /^\/storage\/v1\/b\/acme_raw\/o\?/);
    const started = Date.now();
    await expectProblem(serviceAccountRequest(world.loader.keyJson, 'acme_raw/landing/'), 408, '30-1303');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 4);

    gcs.inject('hang', /^\/token$/, { method: 'POST' });
    const problem = await expectProblem(
      serviceAccountRequest(world.loader.keyJson, 'acme_raw/landing/'),
      408,
      '30-1303',
    );
    expect(problem.extraDetails).toEqual({ step: 'service_account' });
  });

  it('30-1300 with the provider’s reason for another failure', async () => {
    gcs.inject('unavailable', /^\/storage\/v1\/b\/acme_raw\/o\?/);
    const problem = await expectProblem(
      serviceAccountRequest(world.loader.keyJson, 'acme_raw/landing/'),
      400,
      '30-1300',
    );
    expect(problem.extraDetails).toEqual({ provider_error: 'backendError', provider_status: 503 });
  });
});

describe('browse failures', () => {
  let connectionId: number;

  beforeAll(async () => {
    connectionId = await createConnection(api, serviceAccountRequest(world.loader.keyJson, 'acme_raw/landing/'));
  });

  const browse = (path: string) =>
    api.call('browseConnection', { params: { connection_id: connectionId }, body: { path } });

  it('30-1306 outside the restriction, 30-1305 for a missing folder, 30-1304 for an invalid path', async () => {
    const before = gcs.requests.length;
    const outside = await browse('acme_raw/archive/');
    expect(outside.status).toBe(400);
    expect(outside.problem).toMatchObject({
      code: '30-1306',
      detail: 'Path acme_raw/archive/ is out of path restriction bounds acme_raw/landing/',
    });
    expect((await browse('acme_raw/landing//x/')).problem.code).toBe('30-1304');
    // Refused before anything reached the store.
    expect(gcs.requests.length).toBe(before);
    expect((await browse('acme_raw/landing/missing/')).problem.code).toBe('30-1305');
  });
});

describe('import failures', () => {
  let connectionId: number;

  beforeAll(async () => {
    connectionId = await createConnection(api, serviceAccountRequest(world.loader.keyJson, 'acme_raw/landing/'));
  });

  const tableOver = async (path: string) => createTable(api, await createBucketSource(api, connectionId, path));
  const listings = () => gcs.requests.filter((call) => call.path === '/storage/v1/b/acme_raw/o').length;

  it('30-1310 for a folder without CSV files, 30-1305 for a folder that does not exist, 10-1000 for a file of another type', async () => {
    expect((await importAndWait(api, await tableOver('acme_raw/landing/docs/'))).execution).toMatchObject({
      status: 'FAILED',
      error: { code: '30-1310' },
    });
    expect((await importAndWait(api, await tableOver('acme_raw/landing/gone/'))).execution).toMatchObject({
      status: 'FAILED',
      error: { code: '30-1305' },
    });
    expect((await importAndWait(api, await tableOver('acme_raw/landing/sales/readme.txt'))).execution).toMatchObject({
      status: 'FAILED',
      error: { code: '10-1000' },
    });
  });

  it('retries a rate limit (30-1307) as a transient failure: once limited, the import completes', async () => {
    const tableId = await tableOver('acme_raw/landing/sales/');
    const before = listings();
    gcs.inject('rate-limit', /^\/storage\/v1\/b\/acme_raw\/o\?/);
    const version = await importAndWait(api, tableId);
    expect(version.execution, JSON.stringify(version.execution)).toMatchObject({ status: 'COMPLETED' });
    expect(version.metadata).toMatchObject({ row_count: 100 });
    expect(listings() - before).toBe(2);
  });

  it('ends FAILED with 30-1307 when the rate limit outlasts the retries', async () => {
    const tableId = await tableOver('acme_raw/landing/sales/');
    const before = listings();
    // As many refusals as the definition makes attempts: the first and three retries.
    gcs.inject('rate-limit', /^\/storage\/v1\/b\/acme_raw\/o\?/, { times: 4 });
    const version = await importAndWait(api, tableId);
    expect(version.execution).toMatchObject({ status: 'FAILED', error: { code: '30-1307' } });
    expect(listings() - before).toBe(4);
  });
});
