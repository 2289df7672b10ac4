import { getText } from '../aws/data-bucket';
import { AppError } from '../errors/app-error';
import { refuseIfAborted } from '../jobs/cancel';
import type { SchemaAnalysisResult } from '../model/columns';
import { VERSION_FILES, versionPrefix } from './storage';
import { dataVersions } from './versions';

/**
 * The result of a version's last successful analysis: 20-1025 when none was ever asked
 * for, 20-1027 while none has succeeded yet, 10-444 when the last was cancelled before any succeeded.
 */
export async function lastAnalysis(
  tenantId: string,
  tableId: number,
  versionNumber: number,
): Promise<SchemaAnalysisResult> {
  const version = await dataVersions.get(tenantId, tableId, versionNumber);
  if (!version.analysis_execution) throw new AppError('20-1025', { params: [tableId, versionNumber] });
  // A cancelled import has no data to analyse; a cancelled analysis with none before it, no result.
  refuseIfAborted(version.execution);
  if (!version.analysis_depth) {
    refuseIfAborted(version.analysis_execution);
    throw new AppError('20-1027');
  }
  const text = await getText(
    versionPrefix(tenantId, tableId, versionNumber) + VERSION_FILES.analysis(version.analysis_depth),
  );
  if (text === undefined) throw new AppError('20-1027');
  return JSON.parse(text) as SchemaAnalysisResult;
}
