import * as z from 'zod';
import { ColumnSchema, DataRow, SchemaAnalysisDepth } from './columns';
import { User } from './common';
import { JobExecution, LaunchMode } from './job';
import { QualityReport } from './quality-rule';

/** Running a recipe node of a dataset graph version (spec 2.7, 2.8; docs/recipe-runs.md). */

/**
 * The run state of a recipe node (spec 3: values not shown; ours, docs/recipe-runs.md):
 * NOT_RUN never asked to run; QUEUED waiting in a job that builds other nodes first;
 * RUNNING being built; SUCCEEDED its last run built its output, still current; FAILED its
 * last run failed (execution.error); STALE its last run succeeded but a source data version,
 * an upstream output, its bindings or its recipe version changed since; ABORTED its last run
 * was cancelled (execution.error 10-444) and left no output.
 */
export const RECIPE_RUN_STATES = ['NOT_RUN', 'QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'STALE', 'ABORTED'] as const;
export const RecipeRunState = z.enum(RECIPE_RUN_STATES).meta({ id: 'RecipeRunState' });
export type RecipeRunState = z.infer<typeof RecipeRunState>;

export const ExecuteRecipeRequest = z
  .strictObject({
    use_sample: z.boolean().describe('true: run on the samples of the source tables; false: on all their rows'),
    schema_analysis_depth: SchemaAnalysisDepth.optional().describe(
      'Analysis of the output after the run; SHALLOW when omitted. FULL needs the schema:analyze permission (403 otherwise)',
    ),
    launch: LaunchMode.optional(),
  })
  .meta({ id: 'ExecuteRecipeRequest' });

/** What a run measured of a node's output. */
export const RecipeRunMetadata = z
  .object({
    row_count: z.int().min(0),
    column_count: z.int().min(0),
    columns: z.array(ColumnSchema),
    data_bytes: z.int().min(0).describe('Size of the output Parquet file'),
    cpu_seconds: z
      .number()
      .min(0)
      .describe('CPU time of the worker while it built this node (counted in the tenant’s monthly CPU usage)'),
    schema_analysis_depth: SchemaAnalysisDepth.nullable().describe('Depth of the analysis stored with the output'),
  })
  .meta({ id: 'RecipeRunMetadata' });

/** The run fields of a recipe node (spec 2.7 recipe run status); all null before the first run. */
export const runStatusFields = {
  start_time: z.iso.datetime().nullable().describe('When a worker started the latest run'),
  end_time: z.iso.datetime().nullable().describe('When the latest run ended; null while it runs or before it started'),
  use_sample: z.boolean().nullable().describe('Whether the latest run was on samples'),
  schema_analysis_depth: SchemaAnalysisDepth.nullable().describe(
    'Depth requested on the latest run; the depth reached is in metadata',
  ),
  last_run: z.iso.datetime().nullable().describe('When the latest run was requested'),
  run_by: User.nullable().describe('Who requested the latest run'),
  metadata: RecipeRunMetadata.nullable().describe(
    'The output of the latest run’s kind (sample or full), when there is one',
  ),
  execution: JobExecution.nullable().describe('The job of the latest run that included this node'),
  run_state: RecipeRunState,
  quality: QualityReport.nullable().describe(
    'The node’s data-quality rules over the output shown in metadata, as its run checked them; null when none ran (docs/data-quality.md)',
  ),
};

export const RecipeRunStatus = z
  .object({
    dataset_id: z.int(),
    version_number: z.int(),
    node_id: z.int(),
    ...runStatusFields,
    build_node_ids: z
      .array(z.int())
      .describe('Nodes the latest job of this node builds, in order (upstream first); empty before the first run'),
    running_node_id: z.int().nullable().describe('The node that job is building now; null when it is not running'),
  })
  .meta({ id: 'RecipeRunStatus' });

export const RunStatusQuery = z.strictObject({
  job_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('Answer only if the latest run is this job (20-1015 otherwise)'),
});

export const NodePreviewQuery = z.strictObject({
  use_sample: z
    .enum(['true', 'false'])
    .optional()
    .describe('Which output: the sample run’s or the full run’s; the latest run’s kind when omitted'),
});

export const NodePreview = z
  .object({
    dataset_id: z.int(),
    version_number: z.int(),
    node_id: z.int(),
    use_sample: z.boolean(),
    job_id: z.string().describe('The run that wrote the output'),
    row_count: z.int().describe('Rows in the whole output'),
    columns: z.array(ColumnSchema),
    rows: z.array(DataRow).describe('The first rows of the output'),
  })
  .meta({ id: 'RecipeNodePreview' });

export type RecipeRunStatus = z.input<typeof RecipeRunStatus>;
export type RecipeRunMetadata = z.infer<typeof RecipeRunMetadata>;
