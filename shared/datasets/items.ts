import * as z from 'zod';
import { StoredActor } from '../db/items';
import { StoredNodeLineage } from '../model/stored-lineage';

/**
 * The stored items of datasets (spec 2.8), in the layout of data tables:
 *
 *   dataset  entity item (db/entity-item.ts): `data` (name, description, tags)
 *   head     { version_count, live_count, latest_version?, empty_version? }   numbers the graph versions
 *   graph    one item per graph version, its nodes inside: a graph is written whole, in one
 *            conditional write, so no reader ever sees half a graph and a clone cannot lose a
 *            node or an edge (20-1009 and 20-1037 cannot arise). Its lock_version orders
 *            every edit of the graph: two concurrent edits never both commit on one reading.
 */

export const DatasetItemData = z.object({
  name: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()).readonly().nullable(),
});
export type DatasetData = z.infer<typeof DatasetItemData>;

export const GraphHead = z.object({
  /** The last version number given: numbers are never reused. */
  version_count: z.int(),
  /** Versions that exist: the last one cannot be deleted (20-1007). */
  live_count: z.int(),
  /** The newest version, absent only while the dataset is being deleted. */
  latest_version: z.int().optional(),
  /** The dataset's one empty version, if it has one (20-1006). */
  empty_version: z.int().optional(),
});
export type GraphHead = z.infer<typeof GraphHead>;

const nodeAudit = {
  id: z.int(),
  lock_version: z.int(),
  created_by: StoredActor,
  created_date: z.string(),
  last_modified_by: StoredActor,
  last_modified_date: z.string(),
};

export const StoredTableNode = z.object({
  ...nodeAudit,
  node_type: z.literal('TABLE'),
  data_table_id: z.int(),
  /** Null: the latest COMPLETED version of the table when the graph runs. */
  data_table_version_number: z.int().nullable(),
});
export type StoredTableNode = z.infer<typeof StoredTableNode>;

/** One binding of a recipe node: the node that feeds the alias. Edges are derived from them. */
export const StoredBinding = z.object({ source_node_id: z.int(), alias: z.string() });
export type StoredBinding = z.infer<typeof StoredBinding>;

export const StoredRecipeNode = z.object({
  ...nodeAudit,
  node_type: z.literal('RECIPE'),
  recipe_id: z.int(),
  recipe_version_number: z.int(),
  sources: z.array(StoredBinding).readonly(),
});
export type StoredRecipeNode = z.infer<typeof StoredRecipeNode>;

export const StoredNode = z.discriminatedUnion('node_type', [StoredTableNode, StoredRecipeNode]);
export type StoredNode = z.infer<typeof StoredNode>;

export const StoredGraph = z.object({
  dataset_id: z.int(),
  version_number: z.int(),
  version_display_name: z.string(),
  release_status: z.boolean(),
  lock_version: z.int(),
  /** The next node id; a clone copies it with the nodes, so ids stay as they were. */
  next_node_id: z.int(),
  nodes: z.array(StoredNode).readonly(),
  /** Column lineage of each node as of the last save (docs/lineage.md); absent from versions saved before it existed. */
  lineage: z.array(StoredNodeLineage).readonly().optional(),
  created_by: StoredActor,
  created_date: z.string(),
  last_modified_by: StoredActor,
  last_modified_date: z.string(),
});
export type StoredGraph = z.infer<typeof StoredGraph>;
