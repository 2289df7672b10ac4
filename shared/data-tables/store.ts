import { EntityStore } from '../db/entity-store';
import { AppError } from '../errors/app-error';

/** A stored data table: what it imports from; its versions live in its item collection. */
export interface DataTableData {
  readonly name: string;
  readonly description: string | null;
  readonly tags: readonly string[] | null;
  readonly data_source_id: number;
}

/** What references a data table and so keeps it from being deleted (datasets, later). */
export type DataTableReference = 'datasets';

export const dataTableStore = new EntityStore<DataTableData, DataTableReference>({
  kind: 'DATA_TABLE',
  label: 'data table',
  references: {
    datasets: (id) => new AppError('20-1023', { params: [id] }),
  },
});
