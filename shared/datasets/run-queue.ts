import type { Actor } from '../db/actor';
import { is } from '../db/expressions';
import { keys } from '../db/keys';
import { failedAt, transactWrite, tx, type TransactItem } from '../db/transactions';
import { versionConflict } from '../errors/app-error';
import { newJobId } from '../jobs/define-job';
import type { JobRef } from '../jobs/job-ref';
import type { LaunchMode } from '../model/job';
import { pendingExecution } from '../jobs/status';
import type { SchemaAnalysisDepth } from '../model/columns';
import { assertEditable, graphs } from './graphs';
import { recipeRunJob, type BuildStep } from './jobs';
import { recipeVersionsOf } from './response';
import { recipeVersionItems } from '../recipes/versions';
import { outputKindOf, type StoredNodeRun } from './run-items';
import { recipeRunJobRef, refuseWhileRunning, runLockItems } from './run-lock';
import { recipeLanguages, runLaunch } from './run-launch';
import { planRun, tableVersionsNow } from './run-plan';
import { nodeRunItems, nodeRuns } from './runs';

/**
 * Queuing a recipe run (POST .../nodes/{node_id}/execute): the plan (run-plan.ts) and the
 * one transaction that takes the graph version's run lock (run-lock.ts) and writes a PENDING
 * execution on every node the run builds.
 */

const QUEUE_ATTEMPTS = 8;

const backOff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));

export interface RunRequest {
  readonly use_sample: boolean;
  readonly schema_analysis_depth: SchemaAnalysisDepth;
}

/** One node's run item update of a queuing transaction: the item is created when the node never ran. */
function queuedItem(
  tenantId: string,
  datasetId: number,
  graphVersion: number,
  nodeId: number,
  fields: Partial<StoredNodeRun>,
): TransactItem {
  const changes = nodeRunItems.changes({
    set: {
      kind: nodeRunItems.kind,
      tenant_id: tenantId,
      dataset_id: datasetId,
      version_number: graphVersion,
      node_id: nodeId,
      ...fields,
    },
    remove: ['current_node'],
  });
  return tx.update(keys.nodeRun(tenantId, datasetId, graphVersion, nodeId), changes);
}

/**
 * Plans a run of `nodeId` (run-plan.ts) and queues it: the graph version's lock, a PENDING
 * execution on every node it builds, and the mark on each recipe version it runs commit
 * together, on the graph and the recipe versions as read. Another live run of the version
 * is 20-1034; a dead one is failed (10-1047) and replaced. Answers where the run may run
 * (`launch` as asked, or Lambda for a build with a trino-sql node: run-launch.ts), decided
 * before anything is written, so a refused `fargate` leaves nothing queued.
 */
export async function queueRun(
  tenantId: string,
  actor: Actor,
  datasetId: number,
  graphVersion: number,
  nodeId: number,
  request: RunRequest,
  launch: LaunchMode = 'auto',
): Promise<{ job: JobRef; build: BuildStep[]; launch: LaunchMode }> {
  const kind = outputKindOf(request.use_sample);
  for (let attempt = 1; attempt <= QUEUE_ATTEMPTS; attempt += 1) {
    const graph = await graphs.get(tenantId, datasetId, graphVersion);
    // A released version keeps the outputs its release was judged on (the graph's
    // lock_version, checked below, moves with a release that lands meanwhile).
    assertEditable(graph);
    const [runs, versions, tables, languages] = await Promise.all([
      nodeRuns.list(tenantId, datasetId, graphVersion),
      recipeVersionsOf(tenantId, graph.nodes),
      tableVersionsNow(tenantId, graph.nodes),
      recipeLanguages(tenantId, graph.nodes, launch),
    ]);
    const jobId = newJobId(recipeRunJob);
    const build = planRun(graph, nodeId, versions, tables, runs, kind, jobId);
    const mode = runLaunch(launch, build, languages);
    const active = { job_id: jobId, node_id: nodeId, node_ids: build.map((step) => step.node_id) };
    const now = new Date().toISOString();
    const recipeVersions = new Map(
      build.map((step) => [`${step.inputs.recipe_id}/${step.inputs.recipe_version_number}`, step.inputs]),
    );
    const writes: TransactItem[] = [
      tx.update(
        keys.graphRunLock(tenantId, datasetId, graphVersion),
        runLockItems.changes({ set: { active_job: active, kind: runLockItems.kind, tenant_id: tenantId } }),
        { when: is.absent('active_job') },
      ),
      tx.check(
        keys.version(tenantId, 'DATASET', datasetId, graphVersion),
        is.equal('lock_version', graph.lock_version),
      ),
      // A version update judges the runs, then commits only if no run marked the version since (recipes/versions.ts).
      ...[...recipeVersions.values()].map((inputs) =>
        tx.update(
          keys.version(tenantId, 'RECIPE', inputs.recipe_id, inputs.recipe_version_number),
          recipeVersionItems.changes({ set: { run_marker: jobId } }),
          { when: is.equal('lock_version', inputs.recipe_lock_version) },
        ),
      ),
      ...build.map((step) =>
        queuedItem(tenantId, datasetId, graphVersion, step.node_id, {
          execution: pendingExecution(jobId, now),
          job_target: nodeId,
          build_node_ids: active.node_ids,
          use_sample: request.use_sample,
          schema_analysis_depth: request.schema_analysis_depth,
          run_by: actor,
          queued_date: now,
        }),
      ),
    ];
    const outcome = await transactWrite(writes);
    if (outcome.committed)
      return { job: recipeRunJobRef(tenantId, datasetId, graphVersion, active), build, launch: mode };
    if (failedAt(outcome, 0)) await refuseWhileRunning(tenantId, datasetId, graphVersion);
    // The graph or a recipe version changed while the run was planned: plan again.
    else await backOff(attempt);
  }
  throw versionConflict();
}
