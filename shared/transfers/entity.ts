import { defineEntity, listField } from '../http/define-entity';
import { transferResponse } from './response';
import { TRANSFER_STORE, transferExecution, transferStore, type TransferEntity } from './store';

/**
 * The transfer entity, declared once on its store (store.ts). Transfers are started, never
 * updated; each is shown with its job's execution, which fails a job gone silent as it is read
 * (transferExecution). Its status is the stored one.
 */
export const transfers = defineEntity(
  {
    ...TRANSFER_STORE,
    responses: (tenantId, entities) =>
      Promise.all(entities.map(async (entity) => transferResponse(entity, await transferExecution(tenantId, entity)))),
    list: {
      id: listField.integer((entity: TransferEntity) => entity.id),
      target_id: listField.integer((entity: TransferEntity) => entity.data.target_id),
      source_type: listField.text((entity: TransferEntity) => entity.data.source_type),
      source_id: listField.integer((entity: TransferEntity) => entity.data.source_id),
      source_version: listField.integer((entity: TransferEntity) => entity.data.source_version),
      status: listField.text((entity: TransferEntity) => entity.mirrors.execution?.status ?? null),
      created_date: listField.datetime((entity: TransferEntity) => entity.created_date),
      last_modified_date: listField.datetime((entity: TransferEntity) => entity.last_modified_date),
    },
  },
  transferStore,
);
