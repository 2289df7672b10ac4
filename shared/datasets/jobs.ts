import * as z from 'zod';
import { defineJob, ENGINE_WORKER } from '../jobs/define-job';
import { SchemaAnalysisDepth } from '../model/columns';
import { MAX_RECIPE_NODES } from './bindings';
import { RunInputs } from './run-items';

const positiveId = z.int().min(1);

/** One node a recipe run builds: the node and what it reads (planned when the run was asked for). */
export const BuildStep = z.strictObject({ node_id: positiveId, inputs: RunInputs });
export type BuildStep = z.infer<typeof BuildStep>;

/**
 * A recipe run (POST .../nodes/{node_id}/execute): the worker builds the upstream recipe nodes
 * without a current output first, then the node asked for, each with the sandboxed engine.
 */
export const recipeRunJob = defineJob({
  name: 'recipe-run',
  description:
    'Run of a recipe node of a dataset graph: the worker builds each planned node (upstream first) with the sandboxed DuckDB, or Athena for trino-sql recipes, writes its output and its schema analysis, then marks it COMPLETED.',
  params: z.strictObject({
    dataset_id: positiveId,
    version_number: positiveId,
    /** The node the run was asked for: the last step. */
    node_id: positiveId,
    use_sample: z.boolean(),
    schema_analysis_depth: SchemaAnalysisDepth,
    build: z.array(BuildStep).min(1).max(MAX_RECIPE_NODES),
    /**
     * A released schedule's build (docs/schedules.md): once the job is COMPLETED its worker
     * releases the version and settles this entry of the schedule's history.
     */
    release_for: z.strictObject({ schedule_id: positiveId, run_id: z.string().min(1).max(100) }).optional(),
  }),
  worker: {
    name: 'run-recipe',
    handler: 'jobs/run-recipe',
    ...ENGINE_WORKER,
    access: { table: 'write', dataBucket: 'write', athena: true },
    // A trino-sql node's query waits in the machine, not in the worker (infra/athena-branch.ts).
    athenaQueries: true,
  },
});

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
