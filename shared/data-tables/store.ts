import { EntityStore, type Entity, type EntityStoreConfig } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import { DataTableItemData, DataTableMirrors, type DataTableData } from './items';

export type { DataTableData } from './items';

/** What references a data table and so keeps it from being deleted (datasets, later). */
export type DataTableReference = 'datasets';

/** A data table as read: its data and the copy of its latest version. */
export type DataTableEntity = Entity<DataTableData, DataTableMirrors>;

/**
 * How data tables are stored. The declared entity (entity.ts) adds its responses, list and
 * update on this same store; the many modules that only read or write tables import this one.
 */
export const DATA_TABLE_STORE: EntityStoreConfig<DataTableData, DataTableReference, DataTableMirrors> = {
  kind: 'DATA_TABLE',
  label: 'data table',
  data: DataTableItemData,
  mirrors: DataTableMirrors,
  references: {
    datasets: (id) => new AppError('20-1023', { params: [id] }),
  },
};

export const dataTableStore = new EntityStore(DATA_TABLE_STORE);
