import * as z from 'zod';
import { DATA_SOURCE_TYPES } from '../model/data-source';

/** The stored data of a data source: the fields of every kind, null where the kind has none. */
export const DataSourceItemData = z.object({
  name: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()).readonly().nullable(),
  connection_id: z.int(),
  type: z.enum(DATA_SOURCE_TYPES),
  /** bucket: "<bucket>/<folder>/" or "<bucket>/<file>.csv". */
  path: z.string().nullable(),
  /** rdbms. */
  query: z.string().nullable(),
  warehouse: z.string().nullable(),
  /** delta_sharing. */
  share: z.string().nullable(),
  schema: z.string().nullable(),
  table: z.string().nullable(),
  /** delta_sharing time travel, at most one; absent from items written before it existed. */
  table_version: z.int().nullable().optional(),
  table_timestamp: z.string().nullable().optional(),
  /** analytics_db: [projectId].[datasetId].[tableName]. */
  table_ref: z.string().nullable(),
});

export type DataSourceData = z.infer<typeof DataSourceItemData>;
