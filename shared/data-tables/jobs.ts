import * as z from 'zod';
import { defineJob, ENGINE_WORKER } from '../jobs/define-job';
import { SchemaAnalysisDepth } from '../model/columns';

const positiveId = z.int().min(1);

/** The import of a data version (POST /data-versions/batch-create). */
export const importJob = defineJob({
  name: 'import',
  description:
    "Import of a data version: the worker reads the source, loads it with DuckDB and writes the version's files, then marks it COMPLETED.",
  params: z.strictObject({
    data_table_id: positiveId,
    version_number: positiveId,
    /** The data source at the time of the request: a later change does not redirect a running import. */
    data_source_id: positiveId,
  }),
  worker: {
    name: 'import-data-version',
    handler: 'jobs/import-data-version',
    ...ENGINE_WORKER,
    // schedules: its completion hands the new version to the schedules waiting for it (shared/schedules/new-version.ts).
    access: { table: 'write', dataKey: ['decrypt'], dataBucket: 'write', schedules: true },
  },
});

/** A schema analysis of a data version (POST .../schema-analysis). */
export const schemaAnalysisJob = defineJob({
  name: 'schema-analysis',
  description:
    'Schema analysis of a data version: the worker profiles its Parquet with DuckDB (SHALLOW or FULL) and stores the result beside it.',
  params: z.strictObject({ data_table_id: positiveId, version_number: positiveId, depth: SchemaAnalysisDepth }),
  worker: {
    name: 'analyse-schema',
    handler: 'jobs/analyse-schema',
    ...ENGINE_WORKER,
    access: { table: 'write', dataBucket: 'write' },
  },
});
