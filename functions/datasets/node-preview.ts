import { getText } from '../../shared/aws/data-bucket';
import { graphs } from '../../shared/datasets/graphs';
import { findNode } from '../../shared/datasets/nodes';
import { outputAttribute, outputKindOf } from '../../shared/datasets/run-items';
import { NODE_OUTPUT_FILES, nodeOutputPrefix } from '../../shared/datasets/run-storage';
import { nodeRuns } from '../../shared/datasets/runs';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { refuseIfAborted } from '../../shared/jobs/cancel';
import type { DataRow } from '../../shared/model/columns';
import { datasetRoutes } from './routes';

/** The output of the kind asked for (the latest run's kind by default), as long as it is recorded: a build in progress or failed has none. */
export const handler = httpHandler(datasetRoutes.nodePreview, async ({ params, query, principal }) => {
  const { tenantId } = principal;
  const { dataset_id: datasetId, version_number: graphVersion, node_id: nodeId } = params;
  const node = findNode(await graphs.get(tenantId, datasetId, graphVersion), nodeId);
  if (node.node_type !== 'RECIPE') throw new AppError('20-1014', { params: [node.node_type] });
  const run = await nodeRuns.find(tenantId, datasetId, graphVersion, nodeId);
  const useSample = query.use_sample === undefined ? run?.use_sample : query.use_sample === 'true';
  const missing = () => new AppError('20-1039', { params: [`${datasetId}/${graphVersion}/${nodeId}`] });
  if (!run || useSample === undefined) throw missing();
  const kind = outputKindOf(useSample);
  const output = run[outputAttribute(kind)];
  if (!output) {
    // A cancelled run left no output (and removed the one it was replacing): 10-444 says so.
    if (run.use_sample === useSample) refuseIfAborted(run.execution);
    throw missing();
  }
  const text = await getText(
    nodeOutputPrefix(tenantId, datasetId, graphVersion, nodeId, kind) + NODE_OUTPUT_FILES.preview,
  );
  // A run that started meanwhile removed the output before rewriting its files: what was read may be its.
  const still = (await nodeRuns.find(tenantId, datasetId, graphVersion, nodeId))?.[outputAttribute(kind)];
  if (text === undefined || still?.run_id !== output.run_id) throw missing();
  const rows = JSON.parse(text) as DataRow[];
  return {
    body: {
      dataset_id: datasetId,
      version_number: graphVersion,
      node_id: nodeId,
      use_sample: useSample,
      job_id: output.run_id,
      row_count: output.row_count,
      columns: [...output.columns],
      rows,
    },
  };
});
