import { connectionStore } from '../connections/store';
import type { RelatedWrite } from '../db/entity-store';
import { dataSourceStore } from '../data-sources/store';
import { AppError } from '../errors/app-error';
import { DataTableUpdateRequest } from '../model/data-table';
import { storedDataTables } from './store';
import { DataTableViews } from './views';

/**
 * The data table entity, its declaration (store.ts) completed: its responses show what they
 * read of the data source and its connection, a page at a time (views.ts); its update is the
 * full PUT, with 20-1003 for a URL id that is not the body's and 20-1002 for a missing table.
 */
export const dataTables = storedDataTables.with({
  responses: (tenantId, entities) => new DataTableViews(tenantId).ofMany(entities),
  update: {
    document: DataTableUpdateRequest,
    idMismatch: () => new AppError('20-1003'),
    notFound: () => new AppError('20-1002'),
    /**
     * Name, description, tags and data source are replaced. A new data source moves the
     * table's use from one source to the other and, when their connections differ, from one
     * connection to the other (30-1507): each source as read, so neither moved meanwhile.
     * Versions already imported keep their data.
     */
    next: async ({ tenantId }, current, document) => {
      const data = {
        name: document.name,
        description: document.description ?? null,
        tags: document.tags ?? null,
        data_source_id: document.data_source_id,
      };
      const related: RelatedWrite[] = [];
      if (data.data_source_id !== current.data.data_source_id) {
        const [from, to] = await Promise.all([
          dataSourceStore.get(tenantId, current.data.data_source_id),
          dataSourceStore.get(tenantId, data.data_source_id),
        ]);
        related.push(
          dataSourceStore.reference(tenantId, to.id, 'data_tables', 1, { seenLockVersion: to.lock_version }),
          dataSourceStore.reference(tenantId, from.id, 'data_tables', -1, { seenLockVersion: from.lock_version }),
        );
        if (from.data.connection_id !== to.data.connection_id) {
          related.push(
            connectionStore.reference(tenantId, to.data.connection_id, 'tables', 1),
            connectionStore.reference(tenantId, from.data.connection_id, 'tables', -1),
          );
        }
      }
      return { data, related };
    },
  },
});
