import { nodeSchemaAnalysisJob, recipeRunJob } from '../../shared/datasets/jobs';
import { defineRoute } from '../../shared/http/route';
import { NodeParams } from '../../shared/model/dataset';
import { NodeSchemaAnalysisStatus } from '../../shared/model/node-analysis';
import { RecipeRunStatus } from '../../shared/model/recipe-run';
import { CANCEL_DESCRIPTION } from '../data-tables/cancel-routes';

const tag = 'datasets';
const NODE_PATH = '/datasets/{dataset_id}/versions/{version_number}/nodes/{node_id}';

/** Cancelling the jobs of a recipe node: its run and the schema analysis of its output (shared/jobs/cancel.ts). */
export const datasetCancelRoutes = {
  cancelRun: defineRoute({
    operationId: 'cancelDatasetNodeRun',
    method: 'POST',
    path: `${NODE_PATH}/run-status/cancel`,
    summary: 'Cancel the run that builds a recipe node',
    description: `${CANCEL_DESCRIPTION} The whole job is cancelled: the node it was started for and every node it had not built yet read ABORTED (run_state ABORTED) and have no output of the run's kind, so preview, analysis and export of it answer 10-444; nodes it built before keep their outputs. The graph version can be edited and run again once its worker has stopped (20-1034 for up to 15 s).`,
    tag,
    handler: 'datasets/cancel-run',
    permission: 'data:write',
    request: { params: NodeParams },
    response: { status: 200, description: 'The run status, ABORTED', body: RecipeRunStatus },
    errors: ['90-1001', '10-404', '20-1013', '20-1014'],
    // dataBucket and athena: a trino-sql node's Athena files and Glue tables, which no worker is left to remove (cancel-run.ts).
    access: { table: 'write', dataBucket: 'delete', athena: 'cleanup', stopsJobs: [recipeRunJob] },
  }),
  cancelNodeAnalysis: defineRoute({
    operationId: 'cancelDatasetNodeSchemaAnalysis',
    method: 'POST',
    path: `${NODE_PATH}/schema-analysis/cancel`,
    summary: 'Cancel the schema analysis of a recipe node’s output',
    description: `${CANCEL_DESCRIPTION} Only an analysis asked for with POST .../schema-analysis is cancelled here; a run's own analysis is cancelled with its run.`,
    tag,
    handler: 'datasets/cancel-node-analysis',
    permission: 'data:write',
    request: { params: NodeParams },
    response: { status: 200, description: 'The analysis status, ABORTED', body: NodeSchemaAnalysisStatus },
    errors: ['90-1001', '10-404', '20-1014', '20-1026'],
    access: { table: 'write', stopsJobs: [nodeSchemaAnalysisJob] },
  }),
};
