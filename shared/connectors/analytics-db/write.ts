import type { Job } from '@google-cloud/bigquery';
import { config } from '../../config';
import { AppError, validationError } from '../../errors/app-error';
import type { GoogleCredentials } from '../cloud/token';
import type { WriteOptions } from '../write-options';
import { bounded, openAnalyticsDb } from './client';
import { analyticsDbError } from './errors';
import { jsonLinesForLoad } from './load-file';
import { cancelJob, waitForJob } from './view-query';

/** A table of an analytics_db connection's dataset, written with the connection's credentials. */
export interface AnalyticsDbTableDestination {
  readonly credentials: GoogleCredentials;
  /** The connection's dataset: a table target writes there. */
  readonly datasetId: string | null | undefined;
  /** The rendered table name: letters, digits and underscores (shared/targets/destination.ts). */
  readonly table: string;
}

/** The export's Parquet file. */
export interface ParquetToLoad {
  readonly localPath: string;
  readonly bytes: number;
  readonly rows: number;
}

/**
 * The upload goes in one multipart request (what the SDK sends for a load): it may take the
 * connector timeout plus one second per MiB, so a large file is not cut off by a bound meant
 * for a short call.
 */
const UPLOAD_BYTES_PER_SECOND = 2 ** 20;

/** What BigQuery called a failed load job (its errorResult: a reason and no HTTP status). */
function loadJobError(error: unknown, datasetId: string): AppError {
  const reason = (error as { errors?: readonly { reason?: unknown }[] } | undefined)?.errors?.[0]?.reason;
  const status = (error as { code?: unknown } | undefined)?.code;
  if (typeof status === 'number' || typeof reason !== 'string') return analyticsDbError(error, datasetId);
  const details = { provider_error: /^[A-Za-z0-9_.-]{1,64}$/.test(reason) ? reason : 'Unknown' };
  if (reason === 'accessDenied') return new AppError('30-1417', { cause: error, extraDetails: details });
  if (reason === 'notFound')
    return new AppError('30-1414', { params: [datasetId], cause: error, extraDetails: details });
  return new AppError('30-1413', { cause: error, extraDetails: details });
}

/**
 * Loads the export into `<dataset>.<table>` with one BigQuery load job (jobs.insert with the
 * rows uploaded as newline-delimited JSON and their schema declared, load-file.ts): the table is created when absent (CREATE_IF_NEEDED) and its rows
 * and schema replaced (WRITE_TRUNCATE), so an export is that version and a retried export
 * writes the same table again. BigQuery commits a load job whole or not at all, so a failed
 * job leaves the table as it was. The job is polled until DONE; a stopped export cancels it.
 * Failures map to 30-14xx: a missing dataset 30-1414, a refused credential 30-1416, a denied
 * permission 30-1417, anything else (a rejected file, throttling, silence) 30-1413.
 */
export async function loadIntoAnalyticsDb(
  destination: AnalyticsDbTableDestination,
  file: ParquetToLoad,
  options: WriteOptions,
): Promise<{ readonly project: string; readonly dataset: string }> {
  const datasetId = destination.datasetId ?? '';
  if (datasetId === '')
    throw validationError({ dataset_id: 'an analytics_db connection needs a dataset to receive table exports' });
  options.signal.throwIfAborted();
  const timeoutMs = config.connectorTimeoutMs;
  const call = <T>(request: Promise<T>): Promise<T> => bounded(request, timeoutMs, options.signal);
  let job: Job | undefined;
  try {
    const { bigquery, projectId } = await openAnalyticsDb(destination.credentials, timeoutMs, 'query');
    const table = bigquery.dataset(datasetId).table(destination.table);
    const load = await jsonLinesForLoad(file.localPath);
    const uploadMs = timeoutMs + Math.ceil((1000 * load.bytes) / UPLOAD_BYTES_PER_SECOND);
    [job] = await bounded(
      table.createLoadJob(load.localPath, {
        sourceFormat: 'NEWLINE_DELIMITED_JSON',
        schema: { fields: [...load.fields] },
        createDisposition: 'CREATE_IF_NEEDED',
        writeDisposition: 'WRITE_TRUNCATE',
        jobPrefix: 'dataprep_export_',
      }),
      uploadMs,
      options.signal,
    );
    const failure = await waitForJob(job, call, options.signal, () => options.onProgress(0));
    if (failure) throw failure;
    options.onProgress(file.rows);
    return { project: projectId, dataset: datasetId };
  } catch (error) {
    if (options.signal.aborted) {
      if (job) await cancelJob(job, <T>(request: Promise<T>) => bounded(request, timeoutMs));
      throw options.signal.reason;
    }
    throw loadJobError(error, datasetId);
  }
}
