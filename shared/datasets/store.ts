import { EntityStore, type Entity, type EntityStoreConfig } from '../db/entity-store';
import { DatasetItemData, type DatasetData } from './items';

export type { DatasetData } from './items';

export type DatasetEntity = Entity<DatasetData>;

/**
 * Datasets: names unique per tenant; their graph versions are children (graphs.ts). The
 * declared entity (entity.ts) adds its responses, list and update on this same store.
 */
export const DATASET_STORE: EntityStoreConfig<DatasetData, never, Record<never, never>> = {
  kind: 'DATASET',
  label: 'dataset',
  data: DatasetItemData,
  references: {},
};

export const datasetStore = new EntityStore(DATASET_STORE);
