import { deletePrefix } from '../../shared/aws/data-bucket';
import { connectionStore } from '../../shared/connections/store';
import { dataSourceStore } from '../../shared/data-sources/store';
import { tablePrefix } from '../../shared/data-tables/storage';
import { dataTableStore } from '../../shared/data-tables/store';
import { creationInProgress, dataVersions } from '../../shared/data-tables/versions';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.delete, async ({ params, query, principal }) => {
  const { tenantId } = principal;
  const id = params.data_table_id;
  await dataTableStore.delete(tenantId, id, {
    expectedLockVersion: query.lock_version,
    related: async (current) => {
      // The uses of the data source and of its connection end together, the source as read (10-1006 if it moved meanwhile).
      const source = await dataSourceStore.get(tenantId, current.data.data_source_id);
      return [
        dataSourceStore.reference(tenantId, source.id, 'data_tables', -1, { seenLockVersion: source.lock_version }),
        connectionStore.reference(tenantId, source.data.connection_id, 'tables', -1),
        { item: dataVersions.noActiveCreation(tenantId, id), onConditionFailure: creationInProgress },
      ];
    },
  });
  // The table is gone for callers; its versions and files follow.
  await dataVersions.purge(tenantId, id);
  await deletePrefix(tablePrefix(tenantId, id));
  return { body: undefined };
});
