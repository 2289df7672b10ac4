import * as z from 'zod';
import { StoredActor } from '../db/items';
import { StoredExecution } from '../jobs/status';
import { ColumnSchema, SchemaAnalysisDepth } from '../model/columns';
import { QualityReport } from '../model/quality-rule';

/**
 * The stored items of recipe runs, beside the graph in its dataset's item collection
 * (keys.graphRunLock, keys.nodeRun). Run state lives apart from the graph item on purpose:
 * the graph is written whole on every edit, and a worker's status writes must never race
 * those edits. The node responses merge the two (run-view.ts).
 *
 *   lock      { active_job?: { job_id, node_id, node_ids } }  one recipe-run job per graph version
 *   node run  { execution, job_target, use_sample, ..., sample_output?, full_output? }  one per recipe node
 */

/** The two kinds of output a recipe node has: its run on samples, its run on all rows. */
export const OUTPUT_KINDS = ['sample', 'full'] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];

export const outputKindOf = (useSample: boolean): OutputKind => (useSample ? 'sample' : 'full');

/** The attribute of a node run item that holds its current output of `kind`. */
export const outputAttribute = (kind: OutputKind): 'sample_output' | 'full_output' =>
  kind === 'sample' ? 'sample_output' : 'full_output';

/**
 * What one alias of a run read: a data version (TABLE node) or the output of an upstream
 * recipe node, named by the job that wrote it.
 */
export const RunSource = z.object({
  alias: z.string(),
  node_id: z.int(),
  data_table_id: z.int().optional(),
  data_version_number: z.int().optional(),
  upstream_run_id: z.string().optional(),
});
export type RunSource = z.infer<typeof RunSource>;

/**
 * Everything an output was computed from. An output is current while the inputs a run would
 * read now are exactly these (run-plan.ts, `inputsNow`); otherwise it is STALE.
 */
export const RunInputs = z.object({
  recipe_id: z.int(),
  recipe_version_number: z.int(),
  /** The version's lock_version: it moves with every change of its code. */
  recipe_lock_version: z.int(),
  sources: z.array(RunSource).readonly(),
});
export type RunInputs = z.infer<typeof RunInputs>;

/** A node's output of one kind, as its run left it (files under run-storage.ts's prefix). */
export const NodeOutput = z.object({
  run_id: z.string(),
  inputs: RunInputs,
  row_count: z.int(),
  columns: z.array(ColumnSchema).readonly(),
  data_bytes: z.int(),
  cpu_seconds: z.number(),
  analysis_depth: SchemaAnalysisDepth,
  completed_date: z.string(),
  /** The node's data-quality rules over this output, as its run checked them (docs/data-quality.md); absent when none ran. */
  quality: QualityReport.optional(),
});
export type NodeOutput = z.infer<typeof NodeOutput>;

export const ActiveRun = z.object({
  job_id: z.string(),
  /** The node the job was started for (its run item is the job's subject). */
  node_id: z.int(),
  /** Every node the job builds, upstream first. */
  node_ids: z.array(z.int()).readonly(),
});
export type ActiveRun = z.infer<typeof ActiveRun>;

export const RunLock = z.object({ active_job: ActiveRun.optional() });
export type RunLock = z.infer<typeof RunLock>;

export const StoredNodeRun = z.object({
  dataset_id: z.int(),
  version_number: z.int(),
  node_id: z.int(),
  /** The latest job that included this node. */
  execution: StoredExecution,
  /** The node that job was started for: its execution is the job's, this one follows it. */
  job_target: z.int(),
  /** The nodes that job builds, in order (set on the target's item). */
  build_node_ids: z.array(z.int()).readonly(),
  /** The node the job is building now (set on the target's item while it runs). */
  current_node: z.int().optional(),
  use_sample: z.boolean(),
  schema_analysis_depth: SchemaAnalysisDepth,
  run_by: StoredActor,
  queued_date: z.string(),
  sample_output: NodeOutput.optional(),
  full_output: NodeOutput.optional(),
});
export type StoredNodeRun = z.infer<typeof StoredNodeRun>;
