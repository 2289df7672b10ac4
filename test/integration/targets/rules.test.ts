import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, CallOptions } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createConnection } from '../data-sources/fixtures';
import { createTarget, sentBack, targetRequest, writableConnection } from './fixtures';

/** What a target must be: writable through its connection, and a destination that follows docs/targets.md (30-50xx). */
let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor('targets-rules', ['editor']);
});
afterAll(() => env?.close());

const s3 = () => env.twin.s3.endpoint;
const create = (body: CallOptions<'createTarget'>['body']) => api.call('createTarget', { body });
const list = async () => (await api.call('listTargets')).body.total;

/** Creates through a writable connection of `label`; answers the problem (and checks nothing was stored). */
async function refusedCreate(
  label: Parameters<typeof writableConnection>[2],
  kind: Parameters<typeof targetRequest>[0],
  overrides: Record<string, unknown>,
) {
  const connection = await writableConnection(api, s3(), label);
  const before = await list();
  const response = await create(targetRequest(kind, connection.id, overrides));
  expect(response.status, response.text).toBe(400);
  expect(await list()).toBe(before);
  return response.problem;
}

describe('the connection must be writable and of a type that receives data', () => {
  it('refuses a connection without write permission (30-5002)', async () => {
    const readOnly = await createConnection(api, s3(), 'warehouse/password');
    const response = await create(targetRequest('table', readOnly.id));
    expect(response.problem).toMatchObject({
      status: 400,
      code: '30-5002',
      detail: 'Target connection has no write permission',
    });
  });

  it('names the allowed types for a connection that cannot receive the kind (30-5003)', async () => {
    const sharing = await writableConnection(api, s3(), 'delta_sharing/delta_sharing_profile');
    const response = await create(targetRequest('bucket', sharing.id));
    expect(response.problem).toMatchObject({
      code: '30-5003',
      detail: 'Target connection type delta_sharing invalid, must be object_store or cloud_store',
    });
    const warehouse = await writableConnection(api, s3(), 'warehouse/password');
    expect((await create(targetRequest('pricing', warehouse.id))).problem).toMatchObject({
      code: '30-5003',
      detail: 'Target connection type warehouse invalid, must be pricing_dim or pricing_sdk',
    });
  });

  it('checks the type before the permission: a read-only delta-sharing connection is 30-5003', async () => {
    const sharing = await createConnection(api, s3(), 'delta_sharing/delta_sharing_profile');
    expect((await create(targetRequest('table', sharing.id))).problem.code).toBe('30-5003');
  });

  it('checks again on update, changing nothing', async () => {
    const { target } = await createTarget(api, s3(), 'table');
    const readOnly = await createConnection(api, s3(), 'warehouse/oauth_client_credentials');
    const response = await api.call('updateTarget', {
      params: { target_id: target.id },
      body: sentBack(target, { connection_id: readOnly.id }),
    });
    expect(response.problem.code).toBe('30-5002');
    expect((await api.call('getTarget', { params: { target_id: target.id } })).json).toEqual(target);
  });
});

describe('table names', () => {
  it('refuses a name longer than the warehouse takes (30-5004), and accepts the longest', async () => {
    expect(await refusedCreate('warehouse/password', 'table', { table_name: `T${'x'.repeat(255)}` })).toMatchObject({
      code: '30-5004',
      detail: 'Table name exceeds 255 characters',
    });
    const connection = await writableConnection(api, s3(), 'warehouse/password');
    expect((await create(targetRequest('table', connection.id, { table_name: `T${'x'.repeat(254)}` }))).status).toBe(
      201,
    );
  });

  it('allows analytics_db names up to 1024 characters (30-5004 beyond)', async () => {
    expect(
      await refusedCreate('analytics_db/service_account_key', 'table', { table_name: `T${'x'.repeat(1024)}` }),
    ).toMatchObject({
      code: '30-5004',
      detail: 'Table name exceeds 1024 characters',
    });
    expect(await refusedCreate('warehouse/password', 'table', { table_name: `T${'x'.repeat(4000)}` })).toMatchObject({
      code: '30-5004',
      detail: 'Table name exceeds 255 characters',
    });
  });

  it.each(['_staging', ' leading_space'])(
    'refuses %j: the first character cannot be an underscore or space (30-5007)',
    async (name) => {
      expect(await refusedCreate('warehouse/password', 'table', { table_name: name })).toMatchObject({
        code: '30-5007',
        detail: `First character of ${name} cannot be an underscore or space`,
      });
    },
  );

  it.each(['sales-2024', 'sales 2024', 'sales.daily', 'ventes_été', 'a;drop'])(
    'refuses %j: letters, digits and underscores only (30-5006)',
    async (name) => {
      expect(await refusedCreate('warehouse/password', 'table', { table_name: name })).toMatchObject({
        code: '30-5006',
        detail: 'Table name contains invalid characters',
      });
    },
  );

  it.each([
    ['SALES_{region}', '{region}'],
    ['SALES_{DATE}', '{DATE}'],
    ['SALES_{date', '{date'],
    ['SALES_date}', '}'],
    ['SALES_{}', '{}'],
  ])('refuses %j: %s is not a documented parameter (30-5005)', async (name, token) => {
    expect(await refusedCreate('warehouse/password', 'table', { table_name: name })).toMatchObject({
      code: '30-5005',
      detail: `Unsupported dynamic parameter ${token}`,
    });
  });

  it('accepts every documented parameter', async () => {
    const connection = await writableConnection(api, s3(), 'warehouse/password');
    const response = await create(
      targetRequest('table', connection.id, { table_name: 'X_{dataset_name}_{version}_{date}_{time}_{export_id}' }),
    );
    expect(response.status, response.text).toBe(201);
  });
});

describe('pricing paths', () => {
  it.each(['Pricing\\Europe', '\\Pricing\\Europe\\', '\\'])(
    'refuses the project path %j (30-5008)',
    async (projectPath) => {
      expect(
        await refusedCreate('pricing_dim/oauth_client_credentials', 'pricing', { project_path: projectPath }),
      ).toMatchObject({
        code: '30-5008',
        detail: 'Project path must start with a backslash and must not end with one',
      });
    },
  );

  it.each(['\\Prices\\', 'Prices', '\\'])('refuses the table path %j (30-5009)', async (tablePath) => {
    expect(
      await refusedCreate('pricing_dim/oauth_client_credentials', 'pricing', { table_path: tablePath }),
    ).toMatchObject({
      code: '30-5009',
      detail: 'Table path must not start with a backslash and must end with one',
    });
  });

  it('refuses unknown parameters (30-5005) and empty segments (10-1400)', async () => {
    expect(
      await refusedCreate('pricing_dim/oauth_client_credentials', 'pricing', { table_path: 'Prices\\{user}\\' }),
    ).toMatchObject({ code: '30-5005' });
    expect(
      await refusedCreate('pricing_dim/oauth_client_credentials', 'pricing', { project_path: '\\Pricing\\\\Europe' }),
    ).toMatchObject({
      code: '10-1400',
      extraDetails: { project_path: 'must not contain an empty segment (two backslashes in a row)' },
    });
  });
});

describe('folder paths', () => {
  it('keeps folders inside the connection path restriction (30-1106)', async () => {
    expect(await refusedCreate('object_store/secret_key', 'bucket', { path: 'demo/finance/' })).toMatchObject({
      code: '30-1106',
      detail: expect.stringContaining('demo/finance/'),
    });
    expect(await refusedCreate('object_store/secret_key', 'bucket', { path: 'demo/{dataset_name}/' })).toMatchObject({
      code: '30-1106',
    });
  });

  it('follows the bucket naming rules (30-1115) and refuses unknown parameters (30-5005)', async () => {
    expect(await refusedCreate('object_store/secret_key', 'bucket', { path: '{dataset_name}/sales/' })).toMatchObject({
      code: '30-1115',
    });
    expect(await refusedCreate('object_store/secret_key', 'bucket', { path: 'demo/sales/{month}/' })).toMatchObject({
      code: '30-5005',
      detail: 'Unsupported dynamic parameter {month}',
    });
  });
});
