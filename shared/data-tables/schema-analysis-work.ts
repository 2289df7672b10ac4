import type * as z from 'zod';
import { join } from 'node:path';
import { downloadFile, putJson } from '../aws/data-bucket';
import { analyseParquet } from '../engine/schema-analysis';
import type { JobOutcome, JobStep } from '../jobs/job-step';
import type { schemaAnalysisJob } from './jobs';
import { VERSION_FILES, versionPrefix } from './storage';

/**
 * The schema analysis job's work (functions/jobs/analyse-schema.ts): profiles the version's
 * Parquet with DuckDB and stores the result beside it; the version's analysis_depth is set
 * only when the result is stored (the job's completion).
 */
export async function analyseVersionSchema({
  job,
  params,
  pulse,
  workDir,
}: JobStep<z.output<typeof schemaAnalysisJob.params>>): Promise<JobOutcome<{ readonly columns: number }>> {
  const prefix = versionPrefix(job.tenant_id, params.data_table_id, params.version_number);
  const dataPath = join(workDir, VERSION_FILES.data);
  await downloadFile(prefix + VERSION_FILES.data, dataPath, pulse.signal);
  await pulse.stage({ stage: 'ANALYSING', percent: 30 });
  const result = await analyseParquet(dataPath, params.depth, { workDir, signal: pulse.signal });
  pulse.throwIfAborted();
  await putJson(prefix + VERSION_FILES.analysis(params.depth), result);
  return {
    progress: { stage: 'DONE', percent: 100, rows: result.row_count },
    fields: { analysis_depth: params.depth },
    output: { columns: result.columns.length },
  };
}
