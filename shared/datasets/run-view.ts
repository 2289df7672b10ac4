import { config } from '../config';
import { executionView } from '../jobs/view';
import type { JobExecution } from '../model/job';
import type { RecipeRunMetadata, RecipeRunState, RecipeRunStatus } from '../model/recipe-run';
import type { StoredGraph, StoredRecipeNode } from './items';
import { outputAttribute, outputKindOf, type NodeOutput, type StoredNodeRun } from './run-items';
import { isCurrent, tableVersionsNow, type RecipeVersionsByKey, type TableVersionsNow } from './run-plan';
import { nodeRuns } from './runs';

/**
 * What the API shows of a recipe node's runs (spec 2.7 recipe run status, 2.8 RECIPE node):
 * the node's run item merged with the job's status and with what its output was built from.
 */

/** What the run fields of a graph's recipe nodes are computed from. */
export interface RunContext {
  readonly graph: StoredGraph;
  readonly versions: RecipeVersionsByKey;
  readonly runs: ReadonlyMap<number, StoredNodeRun>;
  readonly tables: TableVersionsNow;
}

/**
 * Reads the run items of the graph version, and, when an output exists, the data version each
 * TABLE node reads now (needed to tell SUCCEEDED from STALE).
 */
export async function runContextOf(
  tenantId: string,
  graph: StoredGraph,
  versions: RecipeVersionsByKey,
): Promise<RunContext> {
  const recipes = graph.nodes.some((node) => node.node_type === 'RECIPE');
  const runs = recipes
    ? await nodeRuns.list(tenantId, graph.dataset_id, graph.version_number)
    : new Map<number, StoredNodeRun>();
  const outputs = [...runs.values()].some((run) => run.sample_output ?? run.full_output);
  const tables = outputs ? await tableVersionsNow(tenantId, graph.nodes) : new Map<number, number | undefined>();
  return { graph, versions, runs, tables };
}

const ACTIVE = new Set(['PENDING', 'IN_PROGRESS']);

/**
 * A node's execution: the target's is the job's own; another node's follows the job, so a
 * job that failed (or died) before reaching it shows it FAILED with the job's error, and one
 * that was cancelled shows it ABORTED.
 */
export function nodeExecution(
  run: StoredNodeRun,
  runs: ReadonlyMap<number, StoredNodeRun>,
  now = Date.now(),
): JobExecution {
  const own = executionView(run.execution, now, config.jobInactivitySeconds);
  const target = runs.get(run.job_target);
  if (
    run.node_id === run.job_target ||
    !ACTIVE.has(run.execution.status) ||
    target?.execution.job_id !== run.execution.job_id
  )
    return own;
  const job = executionView(target.execution, now, config.jobInactivitySeconds);
  if (ACTIVE.has(job.status)) return { ...own, heartbeat_date: job.heartbeat_date };
  const error = job.error ?? { code: '10-500', message: 'internal server error' };
  // A cancelled job aborted the nodes it had not built yet; any other end before them failed them.
  const status = job.status === 'ABORTED' ? 'ABORTED' : 'FAILED';
  return { ...own, status, ended_date: job.ended_date, heartbeat_date: job.heartbeat_date, error };
}

function stateOf(execution: JobExecution, current: boolean): RecipeRunState {
  switch (execution.status) {
    case 'PENDING':
      return 'QUEUED';
    case 'IN_PROGRESS':
      return 'RUNNING';
    case 'COMPLETED':
      return current ? 'SUCCEEDED' : 'STALE';
    case 'ABORTED':
      return 'ABORTED';
    default:
      return 'FAILED';
  }
}

export function outputMetadata(output: NodeOutput): RecipeRunMetadata {
  return {
    row_count: output.row_count,
    column_count: output.columns.length,
    columns: [...output.columns],
    data_bytes: output.data_bytes,
    cpu_seconds: output.cpu_seconds,
    schema_analysis_depth: output.analysis_depth,
  };
}

/** The run status of recipe node `node` (NOT_RUN, with every field null, before its first run). */
export function runStatusOf(node: StoredRecipeNode, context: RunContext): RecipeRunStatus {
  const place = {
    dataset_id: context.graph.dataset_id,
    version_number: context.graph.version_number,
    node_id: node.id,
  };
  const run = context.runs.get(node.id);
  if (!run) {
    return {
      ...place,
      start_time: null,
      end_time: null,
      use_sample: null,
      schema_analysis_depth: null,
      last_run: null,
      run_by: null,
      metadata: null,
      execution: null,
      run_state: 'NOT_RUN',
      quality: null,
      build_node_ids: [],
      running_node_id: null,
    };
  }
  const kind = outputKindOf(run.use_sample);
  const execution = nodeExecution(run, context.runs);
  const output = run[outputAttribute(kind)];
  const current = isCurrent(context.graph, node, context.versions, context.tables, context.runs, kind);
  const target = context.runs.get(run.job_target);
  const jobRunning =
    target?.execution.job_id === run.execution.job_id &&
    executionView(target.execution, Date.now(), config.jobInactivitySeconds).status === 'IN_PROGRESS';
  return {
    ...place,
    start_time: execution.started_date,
    end_time: execution.ended_date,
    use_sample: run.use_sample,
    schema_analysis_depth: run.schema_analysis_depth,
    last_run: run.queued_date,
    run_by: run.run_by,
    // An output of the run's kind from an earlier run is shown while this one is queued; a failed run leaves none.
    metadata: output ? outputMetadata(output) : null,
    execution,
    run_state: stateOf(execution, current),
    quality: output?.quality ?? null,
    build_node_ids: [...run.build_node_ids],
    running_node_id: jobRunning ? (target.current_node ?? null) : null,
  };
}
