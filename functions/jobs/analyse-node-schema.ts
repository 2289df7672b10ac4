import { join } from 'node:path';
import { deletePrefix, downloadFile, putJson } from '../../shared/aws/data-bucket';
import { nodeSchemaAnalysisJob } from '../../shared/datasets/jobs';
import { analysisFileKey, currentOutput, nodeAnalyses, type NodeRef } from '../../shared/datasets/node-analyses';
import { outputKindOf } from '../../shared/datasets/run-items';
import { NODE_OUTPUT_FILES, nodeOutputPrefix } from '../../shared/datasets/run-storage';
import { analyseParquet } from '../../shared/engine/schema-analysis';
import { AppError } from '../../shared/errors/app-error';
import type { JobRef } from '../../shared/jobs/job-ref';
import { jobWorker } from '../../shared/jobs/worker-step';
import type * as z from 'zod';

/**
 * The analysis step of a recipe node's output: profiles the output's Parquet with DuckDB,
 * stores the result in a file of its own beside the output (never the run's own analysis
 * file, which a later run rewrites), and records it only if the output is still the one of
 * the run it analysed (node-analyses.ts `record`); otherwise the analysis fails with 20-1028.
 */
type Params = z.output<typeof nodeSchemaAnalysisJob.params>;

const nodeOf = (job: JobRef, params: Params): NodeRef => ({
  tenantId: job.tenant_id,
  datasetId: params.dataset_id,
  graphVersion: params.version_number,
  nodeId: params.node_id,
});

export const handler = jobWorker(
  nodeSchemaAnalysisJob,
  { stage: 'READING', percent: 0 },
  async ({ job, params, pulse, workDir }) => {
    const node = nodeOf(job, params);
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
  },
  {
    // The file goes unless the node's record names it (recorded, then the completion failed).
    onFailure: async ({ job, params }) => {
      const node = nodeOf(job, params);
      const item = await nodeAnalyses.find(node);
      if (item?.analysed?.job_id !== job.job_id)
        await deletePrefix(analysisFileKey(node, outputKindOf(params.use_sample), job.job_id));
    },
  },
);
