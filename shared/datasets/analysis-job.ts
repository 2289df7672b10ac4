import * as z from 'zod';
import { ENGINE_WORKER } from '../data-tables/jobs';
import { defineJob } from '../jobs/define-job';
import { SchemaAnalysisDepth } from '../model/columns';

const positiveId = z.int().min(1);

/**
 * A schema analysis of a recipe node's output (POST .../nodes/{node_id}/schema-analysis):
 * the output of the node's last run's kind, named by the run that wrote it.
 */
export const nodeSchemaAnalysisJob = defineJob({
  name: 'node-schema-analysis',
  description:
    "Schema analysis of a recipe node's output: the worker profiles the output's Parquet with DuckDB (SHALLOW or FULL) and records it only if that output is still the node's.",
  params: z.strictObject({
    dataset_id: positiveId,
    version_number: positiveId,
    node_id: positiveId,
    /** The run whose output is analysed: a later run replacing it fails the analysis (20-1028). */
    run_id: z.string().min(1),
    use_sample: z.boolean(),
    depth: SchemaAnalysisDepth,
  }),
  worker: {
    name: 'analyse-node-schema',
    handler: 'jobs/analyse-node-schema',
    ...ENGINE_WORKER,
    access: { table: 'write', dataBucket: 'write' },
  },
});
