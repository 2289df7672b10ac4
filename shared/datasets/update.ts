import { actorOf } from '../db/actor';
import { AppError } from '../errors/app-error';
import type { DatasetResponse } from '../model/dataset';
import { graphs } from './graphs';
import { datasetResponse } from './response';
import { datasetStore } from './store';

/** A change of a dataset's own fields: undefined leaves a field as it is, null clears it. */
export interface DatasetChange {
  readonly id: number;
  readonly lock_version: number;
  readonly name?: string | undefined;
  readonly description?: string | null | undefined;
  readonly tags?: readonly string[] | null | undefined;
}

/** PUT and PATCH of a dataset: 20-1005 when the body names another dataset, 10-1006 when stale. */
export async function applyDatasetChange(
  caller: { readonly tenantId: string; readonly clientId: string; readonly name: string | null },
  datasetId: number,
  change: DatasetChange,
): Promise<DatasetResponse> {
  if (change.id !== datasetId) throw new AppError('20-1005');
  const { tenantId } = caller;
  const current = await datasetStore.get(tenantId, datasetId);
  const next = {
    name: change.name ?? current.data.name,
    description: change.description === undefined ? current.data.description : change.description,
    tags: change.tags === undefined ? current.data.tags : change.tags,
  };
  const updated = await datasetStore.replace(tenantId, actorOf(caller), current, change.lock_version, next);
  return datasetResponse(updated, (await graphs.latest(tenantId, [datasetId])).get(datasetId));
}
