/**
 * The entities the contract corpus aims at (test/contract/corpus.ts), made in a fresh twin started with
 * CONTRACT_BUCKET: the contract test replays the corpus over them, and the cost bench (bench/cost.ts)
 * measures each operation's valid request against them.
 */
import type { JsonValue } from './variations';
import type { ContractFixtures } from './corpus';
import type { QualityScheduleFixtures } from './quality-schedule-bases';
import type { TestTwin } from '../support/harness';
import {
  createBucketSource,
  createObjectStoreConnection,
  createTable,
  importAndWait,
  putObjects,
} from '../support/imports';

/** The twin's bucket the fixtures read and write. */
export const CONTRACT_BUCKET = 'contract';
const BUCKET = CONTRACT_BUCKET;
const FOLDER = `${BUCKET}/data/`;

/** Makes the fixtures as the tenant's admin (`env.admin`). */
export async function contractFixtures(env: TestTwin): Promise<ContractFixtures> {
  const api = env.admin;
  await putObjects(env, BUCKET, { 'data/a.csv': 'id,name\n1,alpha\n2,beta\n' });
  const connectionId = await createObjectStoreConnection(api, env, { pathRestriction: `${BUCKET}/` });
  const sourceId = await createBucketSource(api, connectionId, FOLDER);
  const tableId = await createTable(api, sourceId);
  const version = await importAndWait(api, tableId);
  const spareConnectionId = await createObjectStoreConnection(api, env);
  const spareSourceId = await createBucketSource(api, connectionId, FOLDER);
  const spareTableId = await createTable(api, sourceId);
  const recipe = async (name: string) =>
    (
      await api.call('createRecipe', {
        body: { name, aliases: ['CurrentTable'], recipe_version: { code: 'SELECT * FROM CurrentTable' } },
      })
    ).body.id;
  const recipeId = await recipe('contract fixture');
  const spareRecipeId = await recipe('contract spare');
  const current = async (path: string) => (await api.raw('GET', path)).json as JsonValue;
  const dataset = async (name: string) => (await api.call('createDataset', { body: { name } })).body.id;
  const datasetId = await dataset('contract fixture');
  const spareDatasetId = await dataset('contract spare');
  const tableNode = async () =>
    (
      await api.call('addDatasetNode', {
        params: { dataset_id: datasetId, version_number: 1 },
        body: { dataset_id: datasetId, node_type: 'TABLE', data_table_id: tableId },
      })
    ).body.id;
  const nodeId = await tableNode();
  const spareNodeId = await tableNode();
  const writable = await createObjectStoreConnection(api, env, { pathRestriction: `${BUCKET}/`, write: true });
  const target = async (name: string) =>
    (await api.call('createTarget', { body: { name, type: 'bucket', connection_id: writable, path: FOLDER } })).body.id;
  const targetId = await target('contract fixture');
  const spareTargetId = await target('contract spare');
  const token = async (description: string) =>
    (await api.call('createToken', { body: { description, role_names: ['viewer'], expiration: 'P30D' } })).body
      .client_id;
  const tokens = { clientId: await token('contract fixture'), spareClientId: await token('contract spare') };
  const qualitySchedules = await qualityScheduleFixtures(env, { tableId, datasetId, nodeId });
  return {
    endpoint: env.twin.s3.endpoint,
    folder: FOLDER,
    connectionId,
    sourceId,
    tableId,
    versionNumber: version.version_number,
    spare: { connectionId: spareConnectionId, sourceId: spareSourceId, tableId: spareTableId, recipeId: spareRecipeId },
    recipeId,
    client: { id: env.twin.admin.client_id, secret: env.twin.admin.client_secret },
    current: {
      connection: await current(`/connections/${connectionId}`),
      source: await current(`/data-sources/${sourceId}`),
      table: await current(`/data-tables/${tableId}`),
      recipe: await current(`/recipes/${recipeId}`),
    },
    datasets: {
      tableId,
      datasetId,
      nodeId,
      spare: { datasetId: spareDatasetId, nodeId: spareNodeId },
      current: {
        dataset: await current(`/datasets/${datasetId}`),
        node: await current(`/datasets/${datasetId}/versions/1/nodes/${nodeId}`),
      },
    },
    targets: {
      connectionId: writable,
      folder: FOLDER,
      targetId,
      spareTargetId,
      current: await current(`/targets/${targetId}`),
    },
    tokens,
    qualitySchedules: { ...qualitySchedules, versionNumber: version.version_number },
  };
}

/**
 * Rules on the fixture table and paused schedules of the fixture dataset, with their toggles
 * on for the corpus tenant (off, every route of theirs answers 10-1501).
 */
async function qualityScheduleFixtures(
  env: TestTwin,
  at: { readonly tableId: number; readonly datasetId: number; readonly nodeId: number },
): Promise<Omit<QualityScheduleFixtures, 'versionNumber'>> {
  const api = env.admin;
  for (const toggle of ['data_quality', 'schedules']) await env.setFeature(toggle, api.tenantId!, 'on');
  const rule = async (name: string) =>
    (
      await api.call('createQualityRule', {
        body: { name, kind: 'not_null', severity: 'warn', data_table_id: at.tableId, column: 'id' },
      })
    ).body.id;
  const schedule = async (name: string) =>
    (
      await api.call('createSchedule', {
        body: {
          name,
          dataset_id: at.datasetId,
          trigger: { type: 'cron', expression: '0 6 * * *', time_zone: 'Europe/Paris' },
          paused: true,
        },
      })
    ).body.id;
  const ruleId = await rule('contract fixture');
  const scheduleId = await schedule('contract fixture');
  const current = async (path: string) => (await api.raw('GET', path)).json as JsonValue;
  return {
    ...at,
    ruleId,
    scheduleId,
    spare: { ruleId: await rule('contract spare'), scheduleId: await schedule('contract spare') },
    current: { rule: await current(`/quality-rules/${ruleId}`), schedule: await current(`/schedules/${scheduleId}`) },
  };
}
