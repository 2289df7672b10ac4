import { batchItemError } from '../../shared/errors/problem';
import { dataTableStore } from '../../shared/data-tables/store';
import { deleteDataVersion } from '../../shared/data-tables/version-deletion';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

/** Deletes versions of one table, each on its own; the others and their numbers stay as they are. */
export const handler = httpHandler(dataTableRoutes.batchDelete, async ({ body, principal }) => {
  const { tenantId } = principal;
  const tables = new Set(body.data_versions.map((version) => version.data_table_id));
  if (tables.size > 1) throw new AppError('20-1001');
  const [dataTableId] = tables;
  await dataTableStore.get(tenantId, dataTableId!);
  const results = [];
  for (const { data_table_id, version_number } of body.data_versions) {
    try {
      await deleteDataVersion(tenantId, data_table_id, version_number);
      results.push({ data_table_id, version_number, status: 'DELETED' as const });
    } catch (error) {
      results.push({ data_table_id, version_number, status: 'REJECTED' as const, error: batchItemError(error) });
    }
  }
  return { body: { results } };
});
