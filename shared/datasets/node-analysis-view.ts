import type * as z from 'zod';
import { getText } from '../aws/data-bucket';
import { config } from '../config';
import { AppError } from '../errors/app-error';
import { refuseIfAborted } from '../jobs/cancel';
import { executionView } from '../jobs/view';
import type { SchemaAnalysisResult } from '../model/columns';
import type { JobExecution } from '../model/job';
import type { NodeSchemaAnalysisStatus } from '../model/node-analysis';
import { graphs } from './graphs';
import { currentOutput, deepestAnalysis, nodeAnalyses, type NodeRef, type StoredNodeAnalysis } from './node-analyses';
import { findNode } from './nodes';
import type { StoredNodeRun } from './run-items';
import { nodeRuns } from './runs';
import { nodeExecution } from './run-view';

/**
 * What the API shows of a recipe node's schema analysis (node-analyses.ts): its status, and
 * the result of the deepest analysis of its current output.
 */

/** The node of the path, which must be a recipe node (20-1014 otherwise; 10-404 when missing). */
export async function recipeNodeRef(
  tenantId: string,
  params: { dataset_id: number; version_number: number; node_id: number },
): Promise<NodeRef> {
  const node = findNode(await graphs.get(tenantId, params.dataset_id, params.version_number), params.node_id);
  if (node.node_type !== 'RECIPE') throw new AppError('20-1014', { params: [node.node_type] });
  return { tenantId, datasetId: params.dataset_id, graphVersion: params.version_number, nodeId: params.node_id };
}

/** Never run and never analysed: 20-1026. */
function noAnalysis(node: NodeRef): AppError {
  return new AppError('20-1026', { params: ['recipe node', node.datasetId, node.graphVersion, node.nodeId] });
}

/** The job that analyses the node's output. */
interface AnalysingJob {
  readonly execution: JobExecution;
  readonly requestedDepth: StoredNodeRun['schema_analysis_depth'];
  /** The run whose output the job analyses (for a run: itself). */
  readonly runId: string;
}

/** The node's last run, seen as the job that analyses what it builds (a node built upstream follows its job's target). */
async function runJob(node: NodeRef, item: StoredNodeAnalysis): Promise<AnalysingJob> {
  const runs = new Map<number, StoredNodeRun>([[item.node_id, item]]);
  if (item.job_target !== item.node_id) {
    const target = await nodeRuns.find(node.tenantId, node.datasetId, node.graphVersion, item.job_target);
    if (target) runs.set(target.node_id, target);
  }
  return {
    execution: nodeExecution(item, runs),
    requestedDepth: item.schema_analysis_depth,
    runId: item.execution.job_id,
  };
}

function analysisJob(item: StoredNodeAnalysis): AnalysingJob | undefined {
  const { analysis_execution: execution, analysis_request: request } = item;
  if (!execution || !request || execution.job_id !== request.job_id) return undefined;
  return {
    execution: executionView(execution, Date.now(), config.jobInactivitySeconds),
    requestedDepth: request.depth,
    runId: request.run_id,
  };
}

/**
 * The latest job that analyses the node's output: the last analysis asked for, unless the
 * node's last run was asked for later (a run analyses what it builds); or the job `jobId`
 * when asked about one (20-1015 when it is neither).
 */
async function analysingJob(node: NodeRef, item: StoredNodeAnalysis, jobId?: string): Promise<AnalysingJob> {
  const analysis = analysisJob(item);
  if (jobId !== undefined) {
    if (analysis && item.analysis_request?.job_id === jobId) return analysis;
    if (item.execution.job_id === jobId) return runJob(node, item);
    throw new AppError('20-1015');
  }
  const analysisLater = analysis && item.analysis_request && item.analysis_request.requested_date >= item.queued_date;
  return analysisLater ? analysis : runJob(node, item);
}

/** The status of the node's schema analysis; 20-1026 when the node was never run. */
export async function nodeAnalysisStatus(
  node: NodeRef,
  jobId?: string,
): Promise<z.input<typeof NodeSchemaAnalysisStatus>> {
  const item = await nodeAnalyses.find(node);
  if (!item) throw noAnalysis(node);
  const job = await analysingJob(node, item, jobId);
  const { kind, output } = currentOutput(item);
  return {
    execution: job.execution,
    ...(output ? { depth: deepestAnalysis(node, item, kind, output).depth } : {}),
    requested_depth: job.requestedDepth,
    run_id: output?.run_id ?? null,
    use_sample: item.use_sample,
  };
}

/**
 * The deepest analysis of the node's current output. Without an output: 20-1027 while the job
 * that will make one runs, 20-1028 naming the run whose output is gone otherwise. The item is
 * read again after the file: a run that started meanwhile rewrites the files (20-1028).
 */
export async function nodeAnalysisResult(node: NodeRef): Promise<SchemaAnalysisResult> {
  const item = await nodeAnalyses.find(node);
  if (!item) throw noAnalysis(node);
  const { kind, output } = currentOutput(item);
  if (!output) {
    const job = await analysingJob(node, item);
    if (job.execution.status === 'PENDING' || job.execution.status === 'IN_PROGRESS') throw new AppError('20-1027');
    refuseIfAborted(job.execution);
    throw new AppError('20-1028', { params: [job.runId] });
  }
  const text = await getText(deepestAnalysis(node, item, kind, output).key);
  const after = await nodeAnalyses.find(node);
  if ((after && currentOutput(after).output?.run_id) !== output.run_id)
    throw new AppError('20-1028', { params: [output.run_id] });
  if (text === undefined) throw new AppError('20-1027');
  return JSON.parse(text) as SchemaAnalysisResult;
}
