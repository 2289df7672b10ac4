import { defineRoute } from '../../shared/http/route';
import { FullGraph, GraphVersionParams } from '../../shared/model/dataset';

/** Releasing a graph version (spec 3, conditions 1–3; shared/datasets/release.ts). */
export const datasetReleaseRoutes = {
  release: defineRoute({
    operationId: 'releaseDatasetVersion',
    method: 'POST',
    path: '/datasets/{dataset_id}/versions/{version_number}/release',
    summary: 'Release a graph version',
    description:
      'Needs exactly one free node (20-1058), a recipe node (20-1020: output_dataset_recipe_node_id), whose latest full-data run is current (20-1021: run_state SUCCEEDED on use_sample false). The release freezes the graph (20-1022 on every later edit) and locks every recipe version it uses (is_locked; 20-1046 on their updates), in one transaction with the graph as read. Releasing a released version answers it as it is.',
    tag: 'datasets',
    handler: 'datasets/release',
    permission: 'data:write',
    request: { params: GraphVersionParams },
    response: { status: 200, description: 'The released version', body: FullGraph },
    errors: ['10-404', '10-1006', '20-1020', '20-1021', '20-1034', '20-1058'],
    access: { table: 'write' },
  }),
};
