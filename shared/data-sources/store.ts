import { EntityStore } from '../db/entity-store';
import { AppError } from '../errors/app-error';

/**
 * Data source kinds on the wire (spec 2.5). The spec writes the delta-sharing value as
 * "delta sharing"; requests may spell it that way, responses say delta_sharing. The
 * analytics-database kind is not named by the spec: analytics_db, like its connection type.
 */
export const DATA_SOURCE_TYPES = ['bucket', 'rdbms', 'delta_sharing', 'analytics_db'] as const;
export type DataSourceType = (typeof DATA_SOURCE_TYPES)[number];

/** A stored data source: the fields of every kind, null where the kind has none. */
export interface DataSourceData {
  readonly name: string;
  readonly description: string | null;
  readonly tags: readonly string[] | null;
  readonly connection_id: number;
  readonly type: DataSourceType;
  /** bucket: "<bucket>/<folder>/" or "<bucket>/<file>.csv". */
  readonly path: string | null;
  /** rdbms. */
  readonly query: string | null;
  readonly warehouse: string | null;
  /** delta_sharing. */
  readonly share: string | null;
  readonly schema: string | null;
  readonly table: string | null;
  /** analytics_db: [projectId].[datasetId].[tableName]. */
  readonly table_ref: string | null;
}

/** What references a data source and so keeps it from being deleted. */
export type DataSourceReference = 'data_tables';

export const dataSourceStore = new EntityStore<DataSourceData, DataSourceReference>({
  kind: 'DATA_SOURCE',
  label: 'data source',
  references: {
    data_tables: (id) => new AppError('30-1707', { params: [id] }),
  },
});
