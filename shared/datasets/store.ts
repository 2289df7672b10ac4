import type { Entity } from '../db/entity-store';
import { defineEntity, entityListFields } from '../http/define-entity';
import { DatasetItemData, type DatasetData } from './items';

export type { DatasetData } from './items';

export type DatasetEntity = Entity<DatasetData>;

/**
 * Datasets as stored and listed, the light part of their declaration: names unique per
 * tenant; their graph versions are children (graphs.ts). entity.ts completes it with their
 * responses and update (DeclaredEntity.with).
 */
export const storedDatasets = defineEntity({
  kind: 'DATASET',
  label: 'dataset',
  data: DatasetItemData,
  references: {},
  list: entityListFields({}),
});

export const datasetStore = storedDatasets.store;
