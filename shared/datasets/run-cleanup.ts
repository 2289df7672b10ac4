import { deletePrefix } from '../aws/data-bucket';
import { keys } from '../db/keys';
import { deleteItems, keysUnder } from '../db/purge';
import { graphOutputPrefix } from './run-storage';

/**
 * What a deleted graph version leaves of its runs: its run lock, its nodes' run items, their
 * data-quality checks and their output files. Called once the version's deletion committed (no run can start on a
 * version that is gone, and none was live: the deletion checks the lock); a cleanup cut
 * short leaves items under a version number that is never given again.
 */
export async function removeRunsOf(tenantId: string, datasetId: number, graphVersion: number): Promise<void> {
  const collection = keys.children(tenantId, 'DATASET', datasetId);
  const [runs, checks] = await Promise.all([
    keysUnder(collection, keys.nodeRunPrefix(graphVersion)),
    keysUnder(collection, keys.nodeCheckPrefix(graphVersion)),
  ]);
  await deleteItems([keys.graphRunLock(tenantId, datasetId, graphVersion), ...runs, ...checks]);
  await deletePrefix(graphOutputPrefix(tenantId, datasetId, graphVersion));
}
