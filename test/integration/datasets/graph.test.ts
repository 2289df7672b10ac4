/**
 * Graph versions and TABLE nodes: create (empty or a clone), list, get, delete with their
 * rules (20-1005, 20-1006, 20-1007, 20-1012), node edits, and a node as a use of its data
 * table and pinned version (20-1023, 20-1024), under concurrency too.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../shared/aws/clients';
import { keys } from '../../../shared/db/keys';
import { unchecked, type ApiClient, type RequestBody } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  createBucketSource,
  createObjectStoreConnection,
  createTable,
  importAndWait,
  putObjects,
} from '../../support/imports';

let env: TestTwin;
let api: ApiClient;
let sourceId: number;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], retryIntervalMs: 10 });
  api = env.admin;
  await putObjects(env, 'landing', { 't/a.csv': 'x,y\n1,a\n2,b\n' });
  sourceId = await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/t/');
});

afterAll(async () => {
  await env?.close();
});

let names = 0;
const newDataset = async (): Promise<number> =>
  (await api.call('createDataset', { body: { name: `graph-${(names += 1)}` } })).body.id;
const at = (datasetId: number, versionNumber = 1) => ({ dataset_id: datasetId, version_number: versionNumber });
const newVersion = (datasetId: number, source?: number) =>
  api.call('createDatasetVersion', {
    params: { dataset_id: datasetId },
    body: { dataset_id: datasetId, source_transformation_graph_version_number: source },
  });
const getVersion = (datasetId: number, versionNumber: number) =>
  api.call('getDatasetVersion', { params: at(datasetId, versionNumber) });
const deleteVersion = (datasetId: number, versionNumber: number) =>
  api.call('deleteDatasetVersion', { params: at(datasetId, versionNumber) });
const addNode = (datasetId: number, versionNumber: number, body: Omit<RequestBody<'addDatasetNode'>, 'dataset_id'>) =>
  api.call('addDatasetNode', { params: at(datasetId, versionNumber), body: { dataset_id: datasetId, ...body } });
const addTable = (datasetId: number, tableId: number, pinned?: number, versionNumber = 1) =>
  addNode(datasetId, versionNumber, { node_type: 'TABLE', data_table_id: tableId, data_table_version_number: pinned });
const deleteNode = (datasetId: number, versionNumber: number, nodeId: number) =>
  api.call('deleteDatasetNode', { params: { ...at(datasetId, versionNumber), node_id: nodeId } });
const deleteTable = (tableId: number) => api.call('deleteDataTable', { params: { data_table_id: tableId } });
const deleteDataVersion = async (tableId: number, versionNumber: number) =>
  (
    await api.call('batchDeleteDataVersions', {
      body: { data_versions: [{ data_table_id: tableId, version_number: versionNumber }] },
    })
  ).body.results[0];

describe('graph versions', () => {
  it('numbers versions V<n>, one empty version at most (20-1006), clones whole, never deletes the last (20-1007)', async () => {
    const id = await newDataset();
    const tableId = await createTable(api, sourceId);
    const secondEmpty = await newVersion(id);
    expect(secondEmpty.status).toBe(400);
    expect(secondEmpty.problem.code).toBe('20-1006');
    // A copy of an empty version would be a second empty version too.
    expect((await newVersion(id, 1)).problem.code).toBe('20-1006');

    const node = (await addTable(id, tableId)).body;
    const empty = await newVersion(id);
    expect(empty.status).toBe(201);
    expect(empty.headers.get('location')).toBe(`/api/data/v1/datasets/${id}/versions/2`);
    expect(empty.body.latest_transformation_graph).toMatchObject({
      version_number: 2,
      version_display_name: 'V2',
      release_status: false,
      nodes: [],
    });

    const clone = await newVersion(id, 1);
    expect(clone.status).toBe(201);
    const original = (await getVersion(id, 1)).body;
    expect(clone.body.latest_transformation_graph).toMatchObject({
      version_number: 3,
      version_display_name: 'V3',
      nodes: original.nodes,
      edges: original.edges,
    });
    expect(clone.body.latest_transformation_graph.nodes.map((copied) => copied.id)).toEqual([node.id]);
    expect(
      (await api.call('getDataset', { params: { dataset_id: id } })).body.latest_transformation_graph?.version_number,
    ).toBe(3);

    const lean = await api.call('listDatasetVersions', { params: { dataset_id: id } });
    expect(lean.body).toMatchObject({ total: 3, offset: 0, limit: 3 });
    expect(lean.body.items.map((version) => version.version_display_name)).toEqual(['V1', 'V2', 'V3']);
    const newestFirst = await api.call('listDatasetVersions', {
      params: { dataset_id: id },
      query: { sort: '-version_number', limit: 1 },
    });
    expect(newestFirst.body.items.map((version) => version.version_number)).toEqual([3]);

    // Deleting the newest: the one before it is the latest again; numbers are never reused.
    expect((await deleteVersion(id, 3)).status).toBe(204);
    expect(
      (await api.call('getDataset', { params: { dataset_id: id } })).body.latest_transformation_graph?.version_number,
    ).toBe(2);
    expect((await getVersion(id, 3)).problem.code).toBe('10-404');
    expect((await deleteVersion(id, 2)).status).toBe(204);
    expect((await newVersion(id)).body.latest_transformation_graph.version_display_name).toBe('V4');
    expect((await deleteVersion(id, 4)).status).toBe(204);
    const last = await deleteVersion(id, 1);
    expect(last.status).toBe(400);
    expect(last.problem.code).toBe('20-1007');
    expect((await getVersion(id, 1)).body.nodes).toHaveLength(1);
  });

  it('refuses a body naming another dataset (20-1005), an unknown source and an unknown dataset (10-404)', async () => {
    const id = await newDataset();
    const mismatch = await api.call('createDatasetVersion', {
      params: { dataset_id: id },
      body: { dataset_id: id + 1000 },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.problem.code).toBe('20-1005');
    expect((await newVersion(id, 9)).problem.code).toBe('10-404');
    expect((await newVersion(999_999)).problem.code).toBe('10-404');
    expect((await api.call('listDatasetVersions', { params: { dataset_id: 999_999 } })).problem.code).toBe('10-404');
    const nodeMismatch = await api.call('addDatasetNode', {
      params: at(id),
      body: { dataset_id: id + 1, node_type: 'TABLE', data_table_id: 1 },
    });
    expect(nodeMismatch.problem.code).toBe('20-1005');
  });

  it('shows nodes and edges through their own endpoints', async () => {
    const id = await newDataset();
    const tableId = await createTable(api, sourceId);
    const node = (await addTable(id, tableId)).body;
    expect((await api.call('listDatasetNodes', { params: at(id) })).body.nodes).toEqual([node]);
    expect((await api.call('listDatasetEdges', { params: at(id) })).body).toEqual({ edges: [] });
    expect((await api.call('getDatasetNode', { params: { ...at(id), node_id: node.id } })).body).toEqual(node);
    expect((await api.call('getDatasetNode', { params: { ...at(id), node_id: 77 } })).problem.code).toBe('10-404');
  });

  it('copies a graph of many nodes identically, its uses counted once per node', async () => {
    const id = await newDataset();
    const tables = await Promise.all([1, 2, 3].map(() => createTable(api, sourceId)));
    for (const tableId of tables) {
      for (let copy = 0; copy < 4; copy += 1) expect((await addTable(id, tableId)).status).toBe(201);
    }
    const source = (await getVersion(id, 1)).body;
    const clone = (await newVersion(id, 1)).body.latest_transformation_graph;
    expect(clone.nodes).toEqual(source.nodes);
    expect(clone.edges).toEqual(source.edges);
    // Both versions use every table: deleting one version leaves the tables in use.
    expect((await deleteVersion(id, 1)).status).toBe(204);
    expect((await deleteTable(tables[0] ?? 0)).problem.code).toBe('20-1023');
    expect((await api.call('deleteDataset', { params: { dataset_id: id } })).status).toBe(204);
    for (const tableId of tables) expect((await deleteTable(tableId)).status).toBe(204);
  });

  it("parallel deletions of one dataset: one 204, the others 404, never a 500; its tables' uses counted down once", async () => {
    const id = await newDataset();
    const tableId = await createTable(api, sourceId);
    expect((await addTable(id, tableId)).status).toBe(201);
    for (let copy = 0; copy < 3; copy += 1) expect((await newVersion(id, 1)).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => api.call('deleteDataset', { params: { dataset_id: id } })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 204)).toHaveLength(1);
    expect(statuses.filter((status) => status !== 204).every((status) => status === 404 || status === 409)).toBe(true);
    expect((await deleteTable(tableId)).status).toBe(204);
  });
});

describe('released versions', () => {
  it('refuse every change of their graph (20-1022); a copy of one is a new draft', async () => {
    const id = await newDataset();
    const tableId = await createTable(api, sourceId);
    const node = (await addTable(id, tableId)).body;
    // Release comes with the next issue; the flag is set in the store as release will set it.
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: keys.version('local', 'DATASET', id, 1),
        UpdateExpression: 'SET release_status = :released',
        ExpressionAttributeValues: { ':released': true },
      }),
    );
    expect(
      (await api.call('getDataset', { params: { dataset_id: id } })).body.latest_transformation_graph?.release_status,
    ).toBe(true);
    const refused = [
      await addTable(id, tableId),
      await api.call('updateDatasetNode', {
        params: { ...at(id), node_id: node.id },
        body: { id: node.id, lock_version: 0, node_type: 'TABLE', dataset_id: id, data_table_version_number: null },
      }),
      await deleteNode(id, 1, node.id),
    ];
    for (const response of refused) {
      expect(response.status).toBe(400);
      expect(response.problem.code).toBe('20-1022');
    }
    expect((await getVersion(id, 1)).body.nodes).toEqual([node]);
    const copy = await newVersion(id, 1);
    expect(copy.body.latest_transformation_graph).toMatchObject({
      version_number: 2,
      release_status: false,
      nodes: [node],
    });
    expect((await addTable(id, tableId, undefined, 2)).status).toBe(201);
  });
});

describe('TABLE nodes', () => {
  it('adds unpinned and pinned nodes, updates and deletes them', async () => {
    const id = await newDataset();
    const tableId = await createTable(api, sourceId);
    await importAndWait(api, tableId);
    const latest = await addTable(id, tableId);
    expect(latest.status).toBe(201);
    expect(latest.body).toMatchObject({
      id: 1,
      node_type: 'TABLE',
      dataset_id: id,
      data_table_id: tableId,
      data_table_version_number: null,
      lock_version: 0,
    });
    expect(latest.headers.get('location')).toBe(`/api/data/v1/datasets/${id}/versions/1/nodes/1`);
    const pinned = await addTable(id, tableId, 1);
    expect(pinned.body).toMatchObject({ id: 2, data_table_version_number: 1 });

    const node = { id: 1, node_type: 'TABLE', dataset_id: id };
    const updated = await api.call('updateDatasetNode', {
      params: { ...at(id), node_id: 1 },
      body: { ...node, lock_version: 0, data_table_version_number: 1 },
    });
    expect(updated.body).toMatchObject({ data_table_version_number: 1, lock_version: 1 });
    const stale = await api.call('updateDatasetNode', {
      params: { ...at(id), node_id: 1 },
      body: { ...node, lock_version: 0, data_table_version_number: null },
    });
    expect(stale.status).toBe(409);
    expect(stale.problem.code).toBe('10-1006');
    const unpinned = await api.call('updateDatasetNode', {
      params: { ...at(id), node_id: 1 },
      body: { ...node, lock_version: 1, data_table_version_number: null },
    });
    expect(unpinned.body).toMatchObject({ data_table_version_number: null, lock_version: 2 });
    const wrongId = await api.call('updateDatasetNode', {
      params: { ...at(id), node_id: 1 },
      body: { ...node, id: 2, lock_version: 2 },
    });
    expect(wrongId.problem.code).toBe('10-1400');

    expect((await deleteNode(id, 1, 2)).status).toBe(204);
    expect((await deleteNode(id, 1, 2)).problem.code).toBe('10-404');
    const graph = (await getVersion(id, 1)).body;
    expect(graph.nodes.map((kept) => kept.id)).toEqual([1]);
    expect(graph.lock_version).toBe(5);
  });

  it('refuses a node type it does not know (20-1012), a TABLE node without a table, and tables or versions that do not exist (10-404)', async () => {
    const id = await newDataset();
    const unknown = await addNode(id, 1, { node_type: 'VIEW' });
    expect(unknown.status).toBe(400);
    expect(unknown.problem.code).toBe('20-1012');
    expect(unknown.problem.detail).toContain('VIEW');
    const noTable = await addNode(id, 1, { node_type: 'TABLE' });
    expect(noTable.problem.code).toBe('10-1400');
    expect(noTable.problem.extraDetails).toHaveProperty('data_table_id');
    expect((await addTable(id, 999_999)).problem.code).toBe('10-404');
    const tableId = await createTable(api, sourceId);
    expect((await addTable(id, tableId, 3)).problem.code).toBe('10-404');
    expect(
      (
        await api.call('addDatasetNode', {
          params: at(id),
          body: unchecked({ dataset_id: id, node_type: 'TABLE', data_table_id: 'one' }),
        })
      ).status,
    ).toBe(400);
    expect((await getVersion(id, 1)).body.nodes).toEqual([]);
  });

  it('a node keeps its table (20-1023) and pinned version (20-1024) from deletion until it goes', async () => {
    const id = await newDataset();
    const tableId = await createTable(api, sourceId);
    await importAndWait(api, tableId);
    await importAndWait(api, tableId);
    const node = (await addTable(id, tableId, 1)).body;
    const table = await deleteTable(tableId);
    expect(table.status).toBe(409);
    expect(table.problem.code).toBe('20-1023');
    expect(await deleteDataVersion(tableId, 1)).toMatchObject({ status: 'REJECTED', error: { code: '20-1024' } });
    expect(await deleteDataVersion(tableId, 2)).toMatchObject({ status: 'DELETED' });
    // Unpinning frees the version, not the table.
    await api.call('updateDatasetNode', {
      params: { ...at(id), node_id: node.id },
      body: { id: node.id, lock_version: 0, node_type: 'TABLE', dataset_id: id, data_table_version_number: null },
    });
    expect(await deleteDataVersion(tableId, 1)).toMatchObject({ status: 'DELETED' });
    expect((await deleteTable(tableId)).problem.code).toBe('20-1023');
    expect((await deleteNode(id, 1, node.id)).status).toBe(204);
    expect((await deleteTable(tableId)).status).toBe(204);
  });

  it('removing the last node of a version is refused while another version is empty (20-1006)', async () => {
    const id = await newDataset();
    const tableId = await createTable(api, sourceId);
    const node = (await addTable(id, tableId)).body;
    expect((await newVersion(id)).status).toBe(201);
    const refused = await deleteNode(id, 1, node.id);
    expect(refused.problem.code).toBe('20-1006');
    expect((await getVersion(id, 1)).body.nodes).toHaveLength(1);
    expect((await addTable(id, tableId, undefined, 2)).status).toBe(201);
    expect((await deleteNode(id, 1, node.id)).status).toBe(204);
  });
});

describe('concurrency', () => {
  it('parallel node additions are all kept, with distinct ids, and counted', async () => {
    const id = await newDataset();
    const tableId = await createTable(api, sourceId);
    const added = await Promise.all(Array.from({ length: 8 }, () => addTable(id, tableId)));
    expect(added.map((response) => response.status)).toEqual(Array.from({ length: 8 }, () => 201));
    const graph = (await getVersion(id, 1)).body;
    expect(graph.nodes.map((node) => node.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(graph.lock_version).toBe(8);
    // Every use was counted: the table stays in use until the last node goes.
    await Promise.all(graph.nodes.slice(1).map((node) => deleteNode(id, 1, node.id)));
    expect((await deleteTable(tableId)).problem.code).toBe('20-1023');
    await api.call('deleteDataset', { params: { dataset_id: id } });
    expect((await deleteTable(tableId)).status).toBe(204);
  });

  it('a node and the deletion of its table never both succeed', async () => {
    for (let round = 0; round < 4; round += 1) {
      const id = await newDataset();
      const tableId = await createTable(api, sourceId);
      const [node, deletion] = await Promise.all([addTable(id, tableId), deleteTable(tableId)]);
      expect([node.status, deletion.status].sort()).toEqual(node.status === 201 ? [201, 409] : [204, 404]);
      const nodes = (await getVersion(id, 1)).body.nodes;
      expect(nodes).toHaveLength(node.status === 201 ? 1 : 0);
    }
  });

  it('parallel version creations get distinct numbers and one empty version at most', async () => {
    const id = await newDataset();
    const tableId = await createTable(api, sourceId);
    await addTable(id, tableId);
    const created = await Promise.all([newVersion(id, 1), newVersion(id, 1), newVersion(id), newVersion(id)]);
    const numbers = created
      .filter((response) => response.status === 201)
      .map((response) => response.body.latest_transformation_graph.version_number);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(created.filter((response) => response.status === 400).map((response) => response.problem.code)).toEqual([
      '20-1006',
    ]);
    const versions = (await api.call('listDatasetVersions', { params: { dataset_id: id } })).body.items;
    expect(versions.map((version) => version.version_number)).toEqual([1, 2, 3, 4]);
  });
});
