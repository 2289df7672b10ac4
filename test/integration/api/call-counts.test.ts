/**
 * What representative requests ask of DynamoDB, pinned (issue 28): a GET of one resource is one
 * read of at most one capacity unit, a list page one Query, a create one transaction (ids are
 * reserved by blocks), a job status poll one read. Counted by the cost bench's meter (bench/cost-meter.ts) on
 * the handlers' own SDK clients; `npm run bench -- cost` shows every route. A change that adds a
 * call to one of these fails here and says which.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installMeter } from '../../../bench/cost-meter';
import { connectionRequest } from '../../../bench/protocol';
import { ID_BLOCK_SIZE } from '../../../shared/db/id-blocks';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createBucketSource, createTable, importAndWait, putObjects } from '../../support/imports';

const BUCKET = 'counts';
let env: TestTwin;
let meter: ReturnType<typeof installMeter>;
let connectionId: number;
let tableId: number;
let versionNumber: number;

beforeAll(async () => {
  env = await startTestTwin({ buckets: [BUCKET] });
  // A data table's answer reads the retention policy when the toggle is on.
  await env.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: 'retention', tenant_id: env.admin.tenantId! },
    body: { strategy: 'on' },
  });
  meter = installMeter(env.twin.s3.port);
  const created = await env.admin.call('createConnection', { body: connectionRequest('counts', env.twin.s3.endpoint) });
  connectionId = created.body.id;
  await putObjects(env, BUCKET, { 'data/a.csv': 'id\n1\n' });
  tableId = await createTable(env.admin, await createBucketSource(env.admin, connectionId, `${BUCKET}/data/`));
  versionNumber = (await importAndWait(env.admin, tableId)).version_number;
  // The authorizer's verdict for the admin's token is cached from here on, as in a warm function.
  meter.take();
}, 120_000);
afterAll(() => env?.close());

/** The DynamoDB calls and capacity one request made. */
async function dynamoOf(request: () => Promise<{ status: number }>) {
  meter.take();
  const { status } = await request();
  const { calls, readUnits, writeUnits } = meter.take();
  const dynamo = Object.fromEntries(Object.entries(calls).filter(([name]) => name.startsWith('DynamoDB ')));
  return { status, dynamo, readUnits, writeUnits };
}

describe('DynamoDB calls per request', () => {
  it('GET of a connection: one GetItem, one read unit', async () => {
    const cost = await dynamoOf(() => env.admin.call('getConnection', { params: { connection_id: connectionId } }));
    expect(cost).toMatchObject({ status: 200, dynamo: { 'DynamoDB GetItem': 1 }, readUnits: 1, writeUnits: 0 });
    expect(Object.keys(cost.dynamo)).toHaveLength(1);
  });

  it('a page of connections: one Query', async () => {
    const cost = await dynamoOf(() => env.admin.call('listConnections', { query: { limit: 5 } }));
    expect(cost).toMatchObject({ status: 200, dynamo: { 'DynamoDB Query': 1 }, writeUnits: 0 });
    expect(Object.keys(cost.dynamo)).toHaveLength(1);
  });

  it('creating a connection: one transaction (the id comes from the block the first create reserved)', async () => {
    const create = (name: string) =>
      dynamoOf(() => env.admin.call('createConnection', { body: connectionRequest(name, env.twin.s3.endpoint) }));
    const created: { status: number; dynamo: Record<string, number> }[] = [];
    for (let index = 0; index < ID_BLOCK_SIZE; index++) created.push(await create(`counted-${index}`));
    // beforeAll's create reserved ids 1 to ID_BLOCK_SIZE: these take the rest of that block, then reserve the next.
    for (const [index, cost] of created.entries()) {
      const reserves = index === ID_BLOCK_SIZE - 1;
      expect(cost).toEqual({
        status: 201,
        dynamo: { 'DynamoDB TransactWriteItems': 1, ...(reserves ? { 'DynamoDB UpdateItem': 1 } : {}) },
        readUnits: 0,
        writeUnits: expect.any(Number),
      });
    }
  });

  it('a schema analysis status poll: one GetItem', async () => {
    const cost = await dynamoOf(() =>
      env.admin.call('getSchemaAnalysisStatus', {
        params: { data_table_id: tableId, version_number: versionNumber },
      }),
    );
    expect(cost.dynamo).toEqual({ 'DynamoDB GetItem': 1 });
  });

  it('GET of a data table: the table, its source and connection in batches, the retention policy', async () => {
    const cost = await dynamoOf(() => env.admin.call('getDataTable', { params: { data_table_id: tableId } }));
    expect(cost).toMatchObject({ status: 200, dynamo: { 'DynamoDB GetItem': 2, 'DynamoDB BatchGetItem': 2 } });
    expect(Object.keys(cost.dynamo)).toHaveLength(2);
  });
});
