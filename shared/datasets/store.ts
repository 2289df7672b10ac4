import { EntityStore, type Entity } from '../db/entity-store';
import { DatasetItemData, type DatasetData } from './items';

export type { DatasetData } from './items';

export type DatasetEntity = Entity<DatasetData>;

/** Datasets: names unique per tenant; their graph versions are children (graphs.ts). */
export const datasetStore = new EntityStore<DatasetData>({
  kind: 'DATASET',
  label: 'dataset',
  data: DatasetItemData,
  references: {},
});
