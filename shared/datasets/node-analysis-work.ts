import type * as z from 'zod';
import { join } from 'node:path';
import { deletePrefix, downloadFile, putJson } from '../aws/data-bucket';
import { analyseParquet } from '../engine/schema-analysis';
import { AppError } from '../errors/app-error';
import type { JobOutcome, JobStep } from '../jobs/job-step';
import type { nodeSchemaAnalysisJob } from './jobs';
import { analysisFileKey, currentOutput, nodeAnalyses, type NodeRef } from './node-analyses';
import { outputKindOf } from './run-items';
import { NODE_OUTPUT_FILES, nodeOutputPrefix } from './run-storage';

type NodeAnalysisStep = JobStep<z.output<typeof nodeSchemaAnalysisJob.params>>;

const nodeOf = ({ job, params }: NodeAnalysisStep): NodeRef => ({
  tenantId: job.tenant_id,
  datasetId: params.dataset_id,
  graphVersion: params.version_number,
  nodeId: params.node_id,
});

/**
 * The node schema analysis job's work (functions/jobs/analyse-node-schema.ts): profiles a
 * recipe node's output Parquet with DuckDB, stores the result in a file of its own beside the
 * output (never the run's own analysis file, which a later run rewrites), and records it only
 * if the output is still the one of the run it analysed (node-analyses.ts `record`);
 * otherwise the analysis fails with 20-1028.
 */
export async function analyseNodeSchema(step: NodeAnalysisStep): Promise<JobOutcome<{ readonly columns: number }>> {
  const { job, params, pulse, workDir } = step;
  const node = nodeOf(step);
  const kind = outputKindOf(params.use_sample);
  // A run that replaced the output before the worker started: nothing of it to read.
  const item = await nodeAnalyses.find(node);
  if (!item || item.use_sample !== params.use_sample || currentOutput(item).output?.run_id !== params.run_id) {
    throw new AppError('20-1028', { params: [params.run_id] });
  }
  const dataPath = join(workDir, NODE_OUTPUT_FILES.data);
  try {
    await downloadFile(
      nodeOutputPrefix(node.tenantId, node.datasetId, node.graphVersion, node.nodeId, kind) + NODE_OUTPUT_FILES.data,
      dataPath,
      pulse.signal,
    );
  } catch (error) {
    // A run that failed on the node meanwhile removed its files.
    if ((error as Error).name === 'NoSuchKey') throw new AppError('20-1028', { params: [params.run_id] });
    throw error;
  }
  await pulse.stage({ stage: 'ANALYSING', percent: 30 });
  const result = await analyseParquet(dataPath, params.depth, { workDir, signal: pulse.signal });
  pulse.throwIfAborted();
  await putJson(analysisFileKey(node, kind, job.job_id), result);
  // A run that started meanwhile rewrote the Parquet read above: then the record is refused.
  await nodeAnalyses.record(job, params);
  return {
    progress: { stage: 'DONE', percent: 100, rows: result.row_count },
    output: { columns: result.columns.length },
  };
}

/** The failed analysis's cleanup: its file goes unless the node's record names it (recorded, then the completion failed). */
export async function removeNodeAnalysisFile(step: NodeAnalysisStep): Promise<void> {
  const node = nodeOf(step);
  const item = await nodeAnalyses.find(node);
  if (item?.analysed?.job_id !== step.job.job_id)
    await deletePrefix(analysisFileKey(node, outputKindOf(step.params.use_sample), step.job.job_id));
}
