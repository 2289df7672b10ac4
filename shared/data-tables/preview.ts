import { getText } from '../aws/data-bucket';
import { AppError } from '../errors/app-error';
import { refuseIfAborted } from '../jobs/cancel';
import type { ColumnSchema, DataRow } from '../model/columns';
import { VERSION_FILES, versionPrefix } from './storage';
import { dataVersions } from './versions';

/** A completed version's first rows, as its import stored them. */
export interface VersionPreview {
  readonly row_count: number;
  readonly columns: ColumnSchema[];
  readonly rows: DataRow[];
}

/** The preview of a version; 10-444 when its import was cancelled, 20-1040 while it is not COMPLETED or its preview file is missing. */
export async function versionPreview(
  tenantId: string,
  tableId: number,
  versionNumber: number,
): Promise<VersionPreview> {
  const version = await dataVersions.get(tenantId, tableId, versionNumber);
  refuseIfAborted(version.execution);
  const missing = () => new AppError('20-1040', { params: [tableId] });
  if (version.execution.status !== 'COMPLETED' || !version.metadata) throw missing();
  const text = await getText(versionPrefix(tenantId, tableId, versionNumber) + VERSION_FILES.preview);
  if (text === undefined) throw missing();
  return {
    row_count: version.metadata.row_count,
    columns: [...version.metadata.columns],
    rows: JSON.parse(text) as DataRow[],
  };
}
