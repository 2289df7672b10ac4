import { recipeRunJob } from '../../shared/datasets/jobs';
import { recipeNodeRef } from '../../shared/datasets/node-analysis-view';
import { readRunStatus } from '../../shared/datasets/response';
import { recipeRunJobRef } from '../../shared/datasets/run-lock';
import { nodeRuns } from '../../shared/datasets/runs';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { ABORTED_BY_USER, cancelJob, notRunning } from '../../shared/jobs/cancel';
import type { JobRef } from '../../shared/jobs/job-ref';
import { datasetCancelRoutes } from './cancel-routes';

/**
 * Cancels the job that builds the node (shared/jobs/cancel.ts): the job started for it, or
 * the one started for a node downstream that builds it first. The job's own status is its
 * target's; the nodes it had not built are aborted after it. The graph version's run lock is
 * left to the cancelled job, which holds it while its worker stops (run-lock.ts liveRun), so
 * that a run started at once cannot get that worker's late uploads.
 */
export const handler = httpHandler(datasetCancelRoutes.cancelRun, async ({ params, principal }) => {
  const node = await recipeNodeRef(principal.tenantId, params);
  const { tenantId, datasetId, graphVersion, nodeId } = node;
  let job: { readonly ref: JobRef; readonly nodeIds: readonly number[] } | undefined;
  await cancelJob(recipeRunJob, async () => {
    const run = await nodeRuns.find(tenantId, datasetId, graphVersion, nodeId);
    if (!run) throw new AppError('20-1013');
    const jobId = run.execution.job_id;
    const target =
      run.job_target === nodeId ? run : await nodeRuns.find(tenantId, datasetId, graphVersion, run.job_target);
    // The node's job ended and the node it was started for has run again since.
    if (target?.execution.job_id !== jobId) throw notRunning(jobId, 'REPLACED');
    const active = { job_id: jobId, node_id: target.node_id, node_ids: target.build_node_ids };
    const { lock: _kept, ...ref } = recipeRunJobRef(tenantId, datasetId, graphVersion, active);
    job = { ref, nodeIds: target.build_node_ids.filter((id) => id !== target.node_id) };
    return { ref, execution: target.execution };
  });
  if (job) await nodeRuns.abortNodes(job.ref, { datasetId, graphVersion }, job.nodeIds, ABORTED_BY_USER);
  return { body: await readRunStatus(tenantId, datasetId, graphVersion, nodeId) };
});
