import { dataVersions } from '../data-tables/versions';
import { graphs } from '../datasets/graphs';
import { AppError, isAppError, validationError } from '../errors/app-error';
import { exportSourceOf, type ExportSource } from '../exports/source';
import { refuseIfAborted } from '../jobs/cancel';
import { RELEASED, type TransferSourceType } from '../model/transfer';

/** What a transfer reads, as a request names it: "released" stands for a dataset's latest released version. */
export interface TransferSourceRequest {
  readonly source_type: TransferSourceType;
  readonly source_id: number;
  readonly source_version: number | typeof RELEASED;
}

/** A source a transfer may send: the export source it reads (its Parquet and schema), its version and row count. */
export interface TransferSource extends ExportSource {
  readonly version: number;
  readonly rows: number;
}

/**
 * The one place where a transfer's source is resolved and its rules checked, for the request
 * and for the worker alike (spec 3, condition 5):
 *
 * - a source that does not exist (data table, dataset, or the version) is 30-6001;
 * - a dataset version must be released (10-1044; "released" with none released too);
 * - a data table version must be COMPLETED (10-1045), and its size known (30-6006: a version
 *   item without its metadata, as a partial restore leaves it);
 * - then what every export checks of the source (exportSourceOf): the released output's full
 *   run, the files' keys and schema.
 */
export async function transferSourceOf(tenantId: string, request: TransferSourceRequest): Promise<TransferSource> {
  try {
    const version = await checkedVersion(tenantId, request);
    const source = await exportSourceOf(tenantId, {
      source_type: request.source_type,
      source_id: request.source_id,
      source_version: version,
      use_sample: false,
      // Checked above with the transfer's own code.
      validate_release: false,
    });
    if (source.rows === undefined) throw new AppError('30-6006');
    return { ...source, version, rows: source.rows };
  } catch (error) {
    if (isAppError(error) && error.code === '10-404') throw new AppError('30-6001', { cause: error });
    throw error;
  }
}

/** The version number the request names, once the transfer's rules for it hold. */
async function checkedVersion(tenantId: string, request: TransferSourceRequest): Promise<number> {
  if (request.source_type === 'dataset') {
    if (request.source_version === RELEASED) return latestReleased(tenantId, request.source_id);
    const graph = await graphs.get(tenantId, request.source_id, request.source_version);
    if (!graph.release_status) throw new AppError('10-1044');
    return graph.version_number;
  }
  if (request.source_version === RELEASED)
    throw validationError({ source_version: 'must be a version number for a data table' });
  const version = await dataVersions.get(tenantId, request.source_id, request.source_version);
  refuseIfAborted(version.execution);
  if (version.execution.status !== 'COMPLETED') throw new AppError('10-1045');
  if (!version.metadata) throw new AppError('30-6006');
  return version.version_number;
}

/** The dataset's newest released version; 10-1044 when none is released. */
async function latestReleased(tenantId: string, datasetId: number): Promise<number> {
  const released = (await graphs.list(tenantId, datasetId))
    .filter((graph) => graph.release_status)
    .map((graph) => graph.version_number);
  if (released.length === 0) throw new AppError('10-1044');
  return Math.max(...released);
}
