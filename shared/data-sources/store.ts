import { EntityStore } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import { DataSourceItemData, type DataSourceData } from './items';

export type { DataSourceData } from './items';

/** What references a data source and so keeps it from being deleted. */
export type DataSourceReference = 'data_tables';

export const dataSourceStore = new EntityStore<DataSourceData, DataSourceReference>({
  kind: 'DATA_SOURCE',
  label: 'data source',
  data: DataSourceItemData,
  references: {
    data_tables: (id) => new AppError('30-1707', { params: [id] }),
  },
});
