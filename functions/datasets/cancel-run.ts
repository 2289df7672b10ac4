import { config } from '../../shared/config';
import { recipeRunJob } from '../../shared/datasets/jobs';
import { recipeNodeRef } from '../../shared/datasets/node-analysis-view';
import { readRunStatus } from '../../shared/datasets/response';
import { recipeRunJobRef } from '../../shared/datasets/run-lock';
import { OUTPUT_KINDS } from '../../shared/datasets/run-items';
import { nodeOutputPrefix } from '../../shared/datasets/run-storage';
import { nodeRuns } from '../../shared/datasets/runs';
import { removeCancelledRuns } from '../../shared/engine/athena/cancelled-run';
import { athenaRunPrefix } from '../../shared/engine/athena/run-prefix';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { ABORTED_BY_USER, cancelJob, notRunning } from '../../shared/jobs/cancel';
import type { JobRef } from '../../shared/jobs/job-ref';
import { datasetCancelRoutes } from './cancel-routes';

/** What the cancelled job's trino-sql nodes left in Athena and Glue (shared/engine/athena/cancelled-run.ts). */
async function removeAthenaRuns(ref: JobRef, datasetId: number, graphVersion: number, nodeIds: readonly number[]) {
  if (config.athena.workgroupPrefix === '') return;
  const prefixes = nodeIds.flatMap((nodeId) =>
    OUTPUT_KINDS.map((kind) =>
      athenaRunPrefix(nodeOutputPrefix(ref.tenant_id, datasetId, graphVersion, nodeId, kind), ref.job_id),
    ),
  );
  await removeCancelledRuns(ref.tenant_id, ref.job_id, prefixes);
}

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
  let job: { readonly ref: JobRef; readonly nodeIds: readonly number[]; readonly built: readonly number[] } | undefined;
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
    job = {
      ref,
      nodeIds: target.build_node_ids.filter((id) => id !== target.node_id),
      built: target.build_node_ids,
    };
    return { ref, execution: target.execution };
  });
  if (job) {
    await nodeRuns.abortNodes(job.ref, { datasetId, graphVersion }, job.nodeIds, ABORTED_BY_USER);
    await removeAthenaRuns(job.ref, datasetId, graphVersion, job.built);
  }
  return { body: await readRunStatus(tenantId, datasetId, graphVersion, nodeId) };
});
