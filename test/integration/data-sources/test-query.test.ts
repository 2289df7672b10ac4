import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unchecked, type ApiClient, type CallOptions } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createConnection } from './fixtures';

/** POST /connections/{id}/test-query: local checks, then the warehouse (warehouse-query.test.ts tests its answers). */
let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor('ds-test-query', ['editor']);
});
afterAll(() => env?.close());

const s3 = () => env.twin.s3.endpoint;
const testQuery = (connectionId: number, body: CallOptions<'testRdbmsQuery'>['body']) =>
  api.call('testRdbmsQuery', { params: { connection_id: connectionId }, body });

describe('testing an rdbms query', () => {
  it('calls the warehouse once the query passes the local checks', async () => {
    // The twin's S3 is allowed and answers, but it is no Snowflake account: 30-1014.
    const warehouse = await createConnection(api, s3(), 'warehouse/password', {
      auth: { auth_type: 'password', username: 'loader', password: 'pw', host: s3() },
    });
    for (const body of [
      { query: 'SELECT 1' },
      { query: 'WITH x AS (SELECT 1) SELECT * FROM x;', warehouse: 'compute_wh' },
    ]) {
      const response = await testQuery(warehouse.id, body);
      expect(response.status).toBe(400);
      expect(response.problem).toMatchObject({ code: '30-1014', detail: 'Failed to establish a warehouse connection' });
    }
  });

  it('refuses DML and DDL locally (30-1009), before any connector call', async () => {
    const warehouse = await createConnection(api, s3(), 'warehouse/password');
    for (const query of [
      'DROP TABLE sales',
      'SELECT 1; DELETE FROM sales',
      'WITH x AS (SELECT 1) UPDATE t SET a = 1',
    ]) {
      const response = await testQuery(warehouse.id, { query });
      expect(response.status, query).toBe(400);
      expect(response.problem, query).toMatchObject({ code: '30-1009', extraDetails: { query: expect.any(String) } });
    }
  });

  it('needs a warehouse connection (30-1007)', async () => {
    const lake = await createConnection(api, s3(), 'object_store/secret_key');
    const response = await testQuery(lake.id, { query: 'SELECT 1' });
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({
      code: '30-1007',
      detail: `Connection ${lake.id} is not a warehouse connection`,
    });
  });

  it('refuses a warehouse other than the connection’s (30-1004)', async () => {
    const warehouse = await createConnection(api, s3(), 'warehouse/password');
    const response = await testQuery(warehouse.id, { query: 'SELECT 1', warehouse: 'OTHER_WH' });
    expect(response.problem).toMatchObject({
      code: '30-1004',
      detail: 'Warehouse in the data source and in the connection do not match (OTHER_WH, COMPUTE_WH)',
    });
  });

  it('answers 10-404 for an unknown connection and 10-1400 without a query', async () => {
    expect((await testQuery(424242, { query: 'SELECT 1' })).problem).toMatchObject({
      code: '10-404',
      detail: 'Entity connection with ID 424242 not found',
    });
    const warehouse = await createConnection(api, s3(), 'warehouse/password');
    expect((await testQuery(warehouse.id, unchecked({}))).problem).toMatchObject({
      code: '10-1400',
      extraDetails: { query: 'is required' },
    });
    expect((await testQuery(warehouse.id, unchecked({ query: 'SELECT 1', database: 'x' }))).problem).toMatchObject({
      code: '10-1400',
      extraDetails: { database: 'is not a known field' },
    });
  });
});
