import { connectionStore } from '../connections/store';
import type { Entity, RelatedWrite } from '../db/entity-store';
import { AppError, validationError } from '../errors/app-error';
import { defineEntity, entityListFields, listField, withoutAuditFields } from '../http/define-entity';
import { DataSourceUpdateRequest } from '../model/data-source';
import { dataSourceData } from './definition';
import { DataSourceItemData, type DataSourceData } from './items';
import { dataSourceResponse } from './response';

export type { DataSourceData } from './items';

/** Both spellings of the delta-sharing kind name the same type. */
const typeOf = (type: string): string => (type === 'delta sharing' ? 'delta_sharing' : type);

/**
 * The kind cannot change: data tables imported from a source assume its kind (files or a
 * query result); another kind is another data source.
 */
function assertSameType(current: Entity<DataSourceData>, type: string): void {
  if (typeOf(type) !== current.data.type) {
    throw validationError({ type: `cannot change: data source ${current.id} is of type ${current.data.type}` });
  }
}

/** The data source entity, declared once. */
export const dataSources = defineEntity({
  kind: 'DATA_SOURCE',
  label: 'data source',
  data: DataSourceItemData,
  references: {
    data_tables: (id: number) => new AppError('30-1707', { params: [id] }),
  },
  response: dataSourceResponse,
  list: entityListFields({
    type: listField.text((entity: Entity<DataSourceData>) => entity.data.type),
    connection_id: listField.integer((entity: Entity<DataSourceData>) => entity.data.connection_id),
  }),

  update: {
    document: DataSourceUpdateRequest,
    idMismatch: () => new AppError('20-1004'),
    documentOf: (current, patch) => {
      assertSameType(current, String(patch.type));
      return withoutAuditFields(dataSourceResponse(current));
    },
    /**
     * Every field is replaced and checked against the connection it names, like a create. A
     * new connection_id moves the data source's reference, and those of the tables reading
     * it, from the old connection to the new one in the same transaction, so the counts that
     * guard a connection's delete hold.
     */
    next: async ({ tenantId }, current, document) => {
      assertSameType(current, document.type);
      const connection = await connectionStore.get(tenantId, document.connection_id);
      const data = dataSourceData(document, connection, current.id);
      const previous = current.data.connection_id;
      if (previous === data.connection_id) {
        return { data, related: [connectionStore.unchanged(tenantId, previous, connection.lock_version)] };
      }
      // The tables reading the data source move with it (30-1507 follows them): as many as read,
      // which the data source's own counter must still hold when the move commits.
      const tables = current.refs.data_tables ?? 0;
      const related: RelatedWrite[] = [
        connectionStore.counters(tenantId, previous, { data_sources: -1, ...(tables > 0 ? { tables: -tables } : {}) }),
        // Validated against the connection as read: it must not have changed since (10-1006).
        connectionStore.counters(
          tenantId,
          data.connection_id,
          { data_sources: 1, ...(tables > 0 ? { tables } : {}) },
          { seenLockVersion: connection.lock_version },
        ),
      ];
      return { data, related, refsAsRead: ['data_tables'] as const };
    },
  },
});

export const dataSourceStore = dataSources.store;
