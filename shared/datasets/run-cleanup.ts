import { deletePrefix } from '../aws/data-bucket';
import { keys } from '../db/keys';
import { deleteItems, keysUnder } from '../db/purge';
import { graphOutputPrefix } from './run-storage';

/**
 * What a deleted graph version leaves of its runs: its run lock, its nodes' run items and
 * their output files. Called once the version's deletion committed (no run can start on a
 * version that is gone, and none was live: the deletion checks the lock); a cleanup cut
 * short leaves items under a version number that is never given again.
 */
export async function removeRunsOf(tenantId: string, datasetId: number, graphVersion: number): Promise<void> {
  const runs = await keysUnder(keys.children(tenantId, 'DATASET', datasetId), keys.nodeRunPrefix(graphVersion));
  await deleteItems([keys.graphRunLock(tenantId, datasetId, graphVersion), ...runs]);
  await deletePrefix(graphOutputPrefix(tenantId, datasetId, graphVersion));
}
