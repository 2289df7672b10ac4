import { defineEntity, entityListFields, listField } from '../http/define-entity';
import type { Entity } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import { DataTableItemData, DataTableMirrors, type DataTableData } from './items';

export type { DataTableData } from './items';

/** What references a data table and so keeps it from being deleted (datasets, later). */
export type DataTableReference = 'datasets';

/** A data table as read: its data and the copy of its latest version. */
export type DataTableEntity = Entity<DataTableData, DataTableMirrors>;

/**
 * Data tables as stored and listed: the light part of their declaration, which the route table
 * and the many modules that read or write tables import; entity.ts completes it with their
 * responses and update (DeclaredEntity.with).
 */
export const storedDataTables = defineEntity({
  kind: 'DATA_TABLE',
  label: 'data table',
  data: DataTableItemData,
  mirrors: DataTableMirrors,
  references: {
    datasets: (id) => new AppError('20-1023', { params: [id] }),
  },
  list: entityListFields({
    data_source_id: listField.integer((entity: Entity<DataTableData>) => entity.data.data_source_id),
  }),
});

export const dataTableStore = storedDataTables.store;
