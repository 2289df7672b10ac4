import { AppError } from '../errors/app-error';
import { DatasetUpdateRequest } from '../model/dataset';
import { graphs } from './graphs';
import { datasetResponse } from './response';
import { storedDatasets } from './store';

/**
 * The dataset entity, its declaration (store.ts) completed: its own fields only; its graph
 * versions are children with routes of their own. A dataset is shown with its latest graph,
 * read for a page at a time (graphs.latest). 20-1005 when the body names another dataset.
 */
export const datasets = storedDatasets.with({
  responses: async (tenantId, entities) => {
    const latest = await graphs.latest(
      tenantId,
      entities.map((entity) => entity.id),
    );
    return entities.map((entity) => datasetResponse(entity, latest.get(entity.id)));
  },
  update: {
    document: DatasetUpdateRequest,
    idMismatch: () => new AppError('20-1005'),
    // What is stored, not the response: a merge needs no read of the latest graph.
    documentOf: (current) => ({
      id: current.id,
      lock_version: current.lock_version,
      name: current.data.name,
      description: current.data.description,
      tags: current.data.tags ? [...current.data.tags] : null,
    }),
    /** A full update: description and tags not sent are cleared; the name, required in storage, stays when omitted. */
    next: (_caller, current, document) => ({
      data: {
        name: document.name ?? current.data.name,
        description: document.description ?? null,
        tags: document.tags ?? null,
      },
    }),
  },
});
