import * as z from 'zod';
import { HOWS } from './lineage-dependencies';

/**
 * Column lineage as stored with a graph version (shared/datasets/items.ts StoredGraph.lineage):
 * one entry per node, each column's dependencies named by the node that feeds them. Written
 * by every save of the version (shared/datasets/lineage/graph-trace.ts), so reading it costs no parse.
 */

export const StoredDependency = z.object({ node_id: z.int(), column: z.string(), how: z.enum(HOWS) });
export type StoredDependency = z.infer<typeof StoredDependency>;

export const StoredColumnLineage = z.object({
  position: z.int(),
  name: z.string().nullable(),
  from: z.array(StoredDependency).readonly(),
  unknown: z.string().optional(),
});
export type StoredColumnLineage = z.infer<typeof StoredColumnLineage>;

export const StoredNodeLineage = z.object({
  node_id: z.int(),
  /** What the entry was traced from (shared/datasets/lineage/graph-trace.ts basisOf): a save retraces only entries whose basis moved. */
  basis: z.string(),
  /** TABLE nodes: the data version whose columns were read (null: none COMPLETED when traced). */
  data_version_number: z.int().nullable().optional(),
  columns: z.array(StoredColumnLineage).readonly(),
  indirect: z.array(StoredDependency).readonly(),
  /** Why the column list is not all known, or the node was not traced. */
  unknown: z.string().optional(),
});
export type StoredNodeLineage = z.infer<typeof StoredNodeLineage>;
