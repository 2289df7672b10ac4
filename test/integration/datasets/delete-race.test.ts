/**
 * DELETE /datasets/{id} while other changes of the same dataset run (issue 21 follow-up,
 * item 4): versions created, nodes added and versions deleted in parallel. The deletion
 * answers 204, or a catalogue 4xx when another change won (409 10-1006), never 500; the other
 * changes answer their own codes, never 500; and whatever the outcome the dataset is either
 * whole or gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createBucketSource, createObjectStoreConnection, createTable, putObjects } from '../../support/imports';

let env: TestTwin;
let api: ApiClient;
let tableId: number;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'] });
  api = env.admin;
  await putObjects(env, 'landing', { 't/a.csv': 'x,y\n1,a\n2,b\n' });
  const sourceId = await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/t/');
  tableId = await createTable(api, sourceId);
});

afterAll(async () => {
  await env?.close();
});

const at = (datasetId: number, versionNumber = 1) => ({ dataset_id: datasetId, version_number: versionNumber });

describe('deleting a dataset while it changes', () => {
  it('answers 204 or a catalogue 4xx, never 500, and leaves the dataset whole or gone', async () => {
    for (let round = 0; round < 6; round += 1) {
      const id = (await api.call('createDataset', { body: { name: `race-${round}` } })).body.id;
      const node = { dataset_id: id, node_type: 'TABLE' as const, data_table_id: tableId };
      expect((await api.call('addDatasetNode', { params: at(id), body: node })).status).toBe(201);
      expect(
        (await api.call('createDatasetVersion', { params: { dataset_id: id }, body: { dataset_id: id } })).status,
      ).toBe(201);

      const changes = [
        ...Array.from({ length: 3 }, () =>
          api.call('createDatasetVersion', {
            params: { dataset_id: id },
            body: { dataset_id: id, source_transformation_graph_version_number: 1 },
          }),
        ),
        ...Array.from({ length: 3 }, () => api.call('addDatasetNode', { params: at(id), body: node })),
        api.call('addDatasetNode', { params: at(id, 2), body: node }),
        api.call('deleteDatasetVersion', { params: at(id, 2) }),
      ];
      const deletion = api.call('deleteDataset', { params: { dataset_id: id } });
      const [deleted, ...others] = await Promise.all([deletion, ...changes]);

      expect([204, 404, 409], `${deleted.status} ${deleted.text}`).toContain(deleted.status);
      for (const other of others) expect(other.status, other.text).toBeLessThan(500);
      // Whole or gone: a dataset that stays can be deleted now that nothing races it.
      const after = await api.call('getDataset', { params: { dataset_id: id } });
      if (after.status === 200)
        expect((await api.call('deleteDataset', { params: { dataset_id: id } })).status).toBe(204);
      else expect(after.status).toBe(404);
    }
    // Every use was released: the table can go.
    expect((await api.call('deleteDataTable', { params: { data_table_id: tableId } })).status).toBe(204);
  }, 120_000);
});
