import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { downloadFile, putJson } from '../../shared/aws/data-bucket';
import { config } from '../../shared/config';
import type { SchemaAnalysisParams } from '../../shared/data-tables/job-params';
import { VERSION_FILES, versionPrefix } from '../../shared/data-tables/storage';
import { analyseParquet } from '../../shared/engine/schema-analysis';
import { jobFailureOf } from '../../shared/jobs/failure';
import type { JobInput } from '../../shared/jobs/job-ref';
import { JobPulse } from '../../shared/jobs/pulse';
import { markCompleted, markRunning } from '../../shared/jobs/status';
import { logger } from '../../shared/log';

/**
 * The schema analysis step: profiles the version's Parquet with DuckDB and stores the result
 * beside it; the version's analysis_depth is set only when the result is stored.
 */
export async function handler(input: JobInput<SchemaAnalysisParams>): Promise<{ readonly columns: number }> {
  try {
    return await runAnalysis(input);
  } catch (error) {
    logger.info('schema analysis failed', { jobId: input.job.job_id, error: error as Error });
    throw jobFailureOf(error);
  }
}

async function runAnalysis({ job, limits, params }: JobInput<SchemaAnalysisParams>): Promise<{ readonly columns: number }> {
  await markRunning(job, { stage: 'READING', percent: 0 });
  const pulse = new JobPulse(job, limits.inactivity_seconds, { stage: 'READING', percent: 0 });
  const workDir = await mkdtemp(join(config.workDirectory, 'analysis-'));
  const prefix = versionPrefix(job.tenant_id, params.data_table_id, params.version_number);
  try {
    const dataPath = join(workDir, VERSION_FILES.data);
    await downloadFile(prefix + VERSION_FILES.data, dataPath);
    await pulse.stage({ stage: 'ANALYSING', percent: 30 });
    const result = await analyseParquet(dataPath, params.depth, { workDir });
    pulse.throwIfAborted();
    await putJson(prefix + VERSION_FILES.analysis(params.depth), result);
    await markCompleted(job, { stage: 'DONE', percent: 100, rows: result.row_count }, { analysis_depth: params.depth });
    return { columns: result.columns.length };
  } finally {
    pulse.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}
