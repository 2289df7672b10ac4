import { getText } from '../../shared/aws/data-bucket';
import { VERSION_FILES, versionPrefix } from '../../shared/data-tables/storage';
import { dataVersions } from '../../shared/data-tables/versions';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { refuseIfAborted } from '../../shared/jobs/cancel';
import type { DataRow } from '../../shared/model/columns';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.sample, async ({ params, query, principal }) => {
  const { tenantId } = principal;
  const { data_table_id: tableId, version_number: versionNumber } = params;
  const version = await dataVersions.get(tenantId, tableId, versionNumber);
  refuseIfAborted(version.execution);
  const unavailable = () => new AppError('20-1059', { params: [tableId, versionNumber] });
  if (version.execution.status !== 'COMPLETED' || !version.metadata) throw unavailable();
  const text = await getText(versionPrefix(tenantId, tableId, versionNumber) + VERSION_FILES.sampleJson);
  if (text === undefined) throw unavailable();
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const rows = lines.slice(query.offset, query.offset + query.limit).map((line) => JSON.parse(line) as DataRow);
  return {
    body: {
      data_table_id: tableId,
      version_number: versionNumber,
      columns: [...version.metadata.columns],
      offset: query.offset,
      limit: query.limit,
      total: lines.length,
      rows,
    },
  };
});
