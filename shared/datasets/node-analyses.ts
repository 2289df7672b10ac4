import * as z from 'zod';
import { config } from '../config';
import { allOf, anyOf, is, not } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { keys, type ItemKey } from '../db/keys';
import { updateItem } from '../db/table';
import { failedAt, transactWrite, tx } from '../db/transactions';
import { AppError } from '../errors/app-error';
import { newJobId } from '../jobs/define-job';
import type { JobRef } from '../jobs/job-ref';
import { JobSupersededError, StoredExecution, pendingExecution } from '../jobs/status';
import { abandonedAfterSeconds, isRunning } from '../jobs/view';
import { SchemaAnalysisDepth } from '../model/columns';
import { nodeSchemaAnalysisJob } from './jobs';
import { StoredNodeRun, outputAttribute, outputKindOf, type NodeOutput, type OutputKind } from './run-items';
import { liveRun } from './run-lock';
import { NODE_OUTPUT_FILES, nodeOutputPrefix } from './run-storage';

/**
 * Schema analyses of recipe node outputs (docs/recipe-runs.md, "Schema analysis of a node's
 * output"). Their state lives on the node's run item (run-items.ts) in attributes of their
 * own, never inside the outputs a run's worker writes, so a run and an analysis never
 * overwrite each other's fields:
 *
 *   analysis_execution  the job of the last analysis asked for
 *   analysis_request    { job_id, run_id, use_sample, depth, requested_date }: what it analyses
 *   analysed            { run_id, depth, job_id }: the last analysis that succeeded, and of which run
 *
 * An analysis names the output by the run that wrote it (NodeOutput.run_id): whatever it
 * recorded applies to that output only, so a later run's output is never taken for analysed.
 */

export const AnalysisRequest = z.object({
  job_id: z.string(),
  run_id: z.string(),
  use_sample: z.boolean(),
  depth: SchemaAnalysisDepth,
  requested_date: z.string(),
});
export type AnalysisRequest = z.infer<typeof AnalysisRequest>;

export const AnalysedOutput = z.object({ run_id: z.string(), depth: SchemaAnalysisDepth, job_id: z.string() });
export type AnalysedOutput = z.infer<typeof AnalysedOutput>;

export const StoredNodeAnalysis = StoredNodeRun.extend({
  analysis_execution: StoredExecution.optional(),
  analysis_request: AnalysisRequest.optional(),
  analysed: AnalysedOutput.optional(),
});
export type StoredNodeAnalysis = z.infer<typeof StoredNodeAnalysis>;
/** A node's run item with its analyses: what reads parse and what analysis writes are checked with. */
const analysisItems = new ItemType('RECIPE_NODE_RUN', StoredNodeAnalysis);

/** Where a node's analyses and outputs are: the graph version and the node. */
export interface NodeRef {
  readonly tenantId: string;
  readonly datasetId: number;
  readonly graphVersion: number;
  readonly nodeId: number;
}

const BEGIN_ATTEMPTS = 4;
const DEPTH_RANK: Readonly<Record<SchemaAnalysisDepth, number>> = { SHALLOW: 1, FULL: 2 };

const runKey = (node: NodeRef): ItemKey => keys.nodeRun(node.tenantId, node.datasetId, node.graphVersion, node.nodeId);
const inactivity = () => config.jobInactivitySeconds;

export function nodeAnalysisJobRef(node: NodeRef, jobId: string): JobRef {
  return {
    tenant_id: node.tenantId,
    job_id: jobId,
    kind: nodeSchemaAnalysisJob.name,
    subject: runKey(node),
    attribute: 'analysis_execution',
  };
}

/** The file an analysis job writes, beside the output it analyses (a run's own analysis is NODE_OUTPUT_FILES.analysis). */
export function analysisFileKey(node: NodeRef, kind: OutputKind, jobId: string): string {
  return `${nodeOutputPrefix(node.tenantId, node.datasetId, node.graphVersion, node.nodeId, kind)}analyses/${jobId}.json`;
}

/** The node's output of its last run's kind, if it has one. */
export function currentOutput(item: StoredNodeAnalysis): {
  readonly kind: OutputKind;
  readonly output: NodeOutput | undefined;
} {
  const kind = outputKindOf(item.use_sample);
  return { kind, output: item[outputAttribute(kind)] };
}

/** The deepest analysis of `output`: its run's own, or a later analysis of the same run when that one is at least as deep. */
export function deepestAnalysis(
  node: NodeRef,
  item: StoredNodeAnalysis,
  kind: OutputKind,
  output: NodeOutput,
): { readonly depth: SchemaAnalysisDepth; readonly key: string } {
  const { analysed } = item;
  if (
    analysed &&
    analysed.run_id === output.run_id &&
    DEPTH_RANK[analysed.depth] >= DEPTH_RANK[output.analysis_depth]
  ) {
    return { depth: analysed.depth, key: analysisFileKey(node, kind, analysed.job_id) };
  }
  const prefix = nodeOutputPrefix(node.tenantId, node.datasetId, node.graphVersion, node.nodeId, kind);
  return { depth: output.analysis_depth, key: prefix + NODE_OUTPUT_FILES.analysis(output.analysis_depth) };
}

/** Why an analysis cannot start on the item as read, if it cannot: 20-1064, 20-1066, 20-1065. */
function refusal(node: NodeRef, item: StoredNodeAnalysis | undefined, now: number): AppError | undefined {
  const output = item && currentOutput(item).output;
  if (!item || !output) return new AppError('20-1064');
  if (deepestAnalysis(node, item, currentOutput(item).kind, output).depth === 'FULL') return new AppError('20-1066');
  if (item.analysis_execution && isRunning(item.analysis_execution, now, inactivity())) return new AppError('20-1065');
  return undefined;
}

export const nodeAnalyses = {
  /** The node's run item with its analyses, if the node was ever run. */
  find(node: NodeRef): Promise<StoredNodeAnalysis | undefined> {
    return analysisItems.find(runKey(node));
  },

  /**
   * Starts an analysis of the node's current output, in one conditional write on the output
   * as read: it needs one (20-1064), not yet FULL (20-1066), no other analysis of the node
   * alive (20-1065; one whose worker went silent no longer blocks), and no live run about to
   * rebuild the node (20-1064: its output is being replaced). A run queued afterwards
   * replaces the output under the analysis, which then fails with 20-1028 (the worker).
   * `inputBytes`: the output's stored bytes, which choose where the analysis runs (shared/jobs/launch.ts).
   */
  async begin(
    node: NodeRef,
    depth: SchemaAnalysisDepth,
  ): Promise<{ readonly job: JobRef; readonly request: AnalysisRequest; readonly inputBytes: number }> {
    for (let attempt = 1; attempt <= BEGIN_ATTEMPTS; attempt += 1) {
      const item = await nodeAnalyses.find(node);
      const refused = refusal(node, item, Date.now());
      if (refused) throw refused;
      const { kind, output } = currentOutput(item!);
      const now = new Date();
      const jobId = newJobId(nodeSchemaAnalysisJob);
      const request: AnalysisRequest = {
        job_id: jobId,
        run_id: output!.run_id,
        use_sample: item!.use_sample,
        depth,
        requested_date: now.toISOString(),
      };
      const staleBefore = new Date(now.getTime() - abandonedAfterSeconds(inactivity()) * 1000).toISOString();
      // The item as read: same kind, same output, same analyses (an analysis in between moves analysis_execution).
      const asRead = allOf(
        is.equal('use_sample', item!.use_sample),
        is.equal(`${outputAttribute(kind)}.run_id`, request.run_id),
        item!.analysed ? is.equal('analysed.job_id', item!.analysed.job_id) : is.absent('analysed'),
        anyOf(
          is.absent('analysis_execution'),
          not(is.oneOf('analysis_execution.status', ['PENDING', 'IN_PROGRESS'])),
          is.less('analysis_execution.heartbeat_date', staleBefore),
        ),
      );
      const started = analysisItems.changes({
        set: { analysis_execution: pendingExecution(jobId, request.requested_date), analysis_request: request },
      });
      const outcome = await transactWrite([
        tx.update(runKey(node), started, { when: asRead }),
        tx.check(
          keys.graphRunLock(node.tenantId, node.datasetId, node.graphVersion),
          anyOf(is.absent('active_job'), not(is.containing('active_job.node_ids', node.nodeId))),
        ),
      ]);
      if (outcome.committed) return { job: nodeAnalysisJobRef(node, jobId), request, inputBytes: output!.data_bytes };
      if (failedAt(outcome, 1)) {
        // A dead run's lock is released by liveRun; a live one is rebuilding this node.
        const active = await liveRun(node.tenantId, node.datasetId, node.graphVersion);
        if (active?.node_ids.includes(node.nodeId)) throw new AppError('20-1064');
      }
      // The item changed between the read and the write: judge it again.
    }
    throw new AppError('20-1065');
  },

  /**
   * Records a finished analysis of `request.run_id`'s output, only if that output is still the
   * node's and the job still owns the analysis: otherwise 20-1028 (a run replaced the output,
   * or removed it while rebuilding it), or the job was superseded.
   */
  async record(ref: JobRef, request: Pick<AnalysisRequest, 'run_id' | 'use_sample' | 'depth'>): Promise<void> {
    const analysed: AnalysedOutput = { run_id: request.run_id, depth: request.depth, job_id: ref.job_id };
    const recorded = await updateItem(
      ref.subject,
      analysisItems.changes({ set: { analysed } }),
      allOf(
        is.equal('analysis_execution.job_id', ref.job_id),
        is.equal('analysis_execution.status', 'IN_PROGRESS'),
        is.equal('use_sample', request.use_sample),
        is.equal(`${outputAttribute(outputKindOf(request.use_sample))}.run_id`, request.run_id),
      ),
    );
    if (recorded) return;
    const old = await analysisItems.find(ref.subject);
    if (old?.analysis_execution?.job_id !== ref.job_id || old.analysis_execution.status !== 'IN_PROGRESS')
      throw new JobSupersededError(ref);
    throw new AppError('20-1028', { params: [request.run_id] });
  },
};
