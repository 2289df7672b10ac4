import { join } from 'node:path';
import { downloadFile, putJson } from '../../shared/aws/data-bucket';
import { schemaAnalysisJob } from '../../shared/data-tables/jobs';
import { VERSION_FILES, versionPrefix } from '../../shared/data-tables/storage';
import { analyseParquet } from '../../shared/engine/schema-analysis';
import { jobWorker } from '../../shared/jobs/worker-step';

/**
 * The schema analysis step: profiles the version's Parquet with DuckDB and stores the result
 * beside it; the version's analysis_depth is set only when the result is stored.
 */
export const handler = jobWorker(
  schemaAnalysisJob,
  { stage: 'READING', percent: 0 },
  async ({ job, params, pulse, workDir }) => {
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
  },
);
