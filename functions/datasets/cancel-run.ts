import { deletePrefix } from '../../shared/aws/data-bucket';
import { config } from '../../shared/config';
import { recipeRunJob } from '../../shared/datasets/jobs';
import { recipeNodeRef } from '../../shared/datasets/node-analysis-view';
import { readRunStatus } from '../../shared/datasets/response';
import { recipeRunJobRef } from '../../shared/datasets/run-lock';
import { OUTPUT_KINDS } from '../../shared/datasets/run-items';
import { nodeOutputPrefix } from '../../shared/datasets/run-storage';
import { nodeRuns } from '../../shared/datasets/runs';
import { athenaRunPrefix } from '../../shared/engine/athena/run-prefix';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { ABORTED_BY_USER, cancelJob, notRunning } from '../../shared/jobs/cancel';
import type { JobRef } from '../../shared/jobs/job-ref';
import { logger } from '../../shared/log';
import { datasetCancelRoutes } from './cancel-routes';

/**
 * The Athena files of the cancelled job's nodes (their tables' manifests, a CTAS's output):
 * a trino-sql node's query waits in the state machine, which StopExecution ends with no
 * worker left to remove them (docs/decisions.md, "Athena queries wait in Step Functions").
 */
async function removeAthenaFiles(ref: JobRef, datasetId: number, graphVersion: number, nodeIds: readonly number[]) {
  if (config.athena.workgroupPrefix === '') return;
  await Promise.all(
    nodeIds.flatMap((nodeId) =>
      OUTPUT_KINDS.map((kind) =>
        deletePrefix(
          athenaRunPrefix(nodeOutputPrefix(ref.tenant_id, datasetId, graphVersion, nodeId, kind), ref.job_id),
        ),
      ),
    ),
  ).catch((error: unknown) =>
    logger.warn('removing a cancelled run’s Athena files failed', { jobId: ref.job_id, error: error as Error }),
  );
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
    await removeAthenaFiles(job.ref, datasetId, graphVersion, job.built);
  }
  return { body: await readRunStatus(tenantId, datasetId, graphVersion, nodeId) };
});
