import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Job, Table } from '@google-cloud/bigquery';
import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import type { GoogleCredentials } from '../cloud/token';
import type { FetchedSource, FetchOptions } from '../source-types';
import { bounded, openAnalyticsDb } from './client';
import { analyticsDbImportError, type ImportPhase } from './errors';
import { parseTableRef, type TableRef } from './table-ref';
import { declaredColumns, lineOf, type BigQueryField } from './types';
import { cancelJob, readResultPage, startViewJob, waitForJob, type QueryJobFailure, type RowsPage } from './view-query';

/**
 * Reads an analytics_db data source: its table_ref names one table (spec 2.5 gives the kind no
 * query). A table (or snapshot) is read as BigQuery serves a table, with no query job and
 * nothing billed: tables.get for its type and schema, then tabledata.list page by page, each
 * page asked for with the previous one's pageToken. A view has no rows to list: it is read
 * through a query job (view-query.ts) whose result is paged the same way. BigQuery ends a page
 * at maxResults rows or about 10 MB, whichever comes first, so a page is what is held in
 * memory; each page is written to one JSON Lines file before the next is asked for, and the
 * engine loads that file with the types the schema declares (types.ts). Every call is bounded
 * by CONNECTOR_TIMEOUT_MS and made once (a failed import is retried by its job when transient).
 */

/** Rows asked for per page; BigQuery may send fewer (its byte limit), never more. */
export const PAGE_ROWS = 10_000;
/** Table types tabledata.list reads; views, materialized views and external tables go through a query. */
const LISTED_TYPES = new Set(['TABLE', 'SNAPSHOT']);
const RESULT_FILE = 'table-rows.jsonl';

export interface AnalyticsDbSourceInput {
  readonly credentials: GoogleCredentials;
  /** The data source's table_ref: [projectId].[datasetId].[tableName]. */
  readonly tableRef: string;
  /** The connection's dataset; when it names one, the table must be in it (30-1422). */
  readonly datasetId: string | null;
}

interface TableMetadata {
  readonly type?: string;
  readonly location?: string;
  readonly schema?: { readonly fields?: readonly BigQueryField[] };
}

/** A bounded call of the SDK whose failure is mapped for the import's phase. */
type Step = <T>(phase: ImportPhase, call: Promise<T>) => Promise<T>;

/** Writes `text` to `out`, waiting while the file's buffer is full. */
async function write(out: WriteStream, text: string, signal: AbortSignal): Promise<void> {
  if (!out.write(text)) await once(out, 'drain', { signal });
}

/**
 * The table's project and dataset are checked against the connection again at import time:
 * the connection's key or dataset may have changed since the data source was defined.
 */
function checkScope(ref: TableRef, projectId: string, datasetId: string | null): void {
  if (ref.project !== projectId) throw new AppError('30-1421', { params: [ref.project, projectId] });
  if (datasetId && ref.dataset !== datasetId) throw new AppError('30-1422', { params: [ref.dataset, datasetId] });
}

/** Writes every page `readPage` gives, following pageToken, as JSON lines to `path`; answers the bytes written. */
async function writePages(
  path: string,
  fields: readonly BigQueryField[],
  readPage: (pageToken: string | undefined) => Promise<RowsPage>,
  options: FetchOptions,
): Promise<number> {
  const out = createWriteStream(path);
  // A write still in flight when a failure destroys the stream reports to no one else.
  out.on('error', () => undefined);
  let bytes = 0;
  try {
    let pageToken: string | undefined;
    do {
      const page = await readPage(pageToken);
      for (const row of page.rows ?? []) {
        const line = `${JSON.stringify(lineOf(row.f ?? [], fields))}\n`;
        bytes += Buffer.byteLength(line);
        await write(out, line, options.signal);
      }
      options.onProgress({ bytesRead: bytes, filesDone: 0, filesTotal: 1 });
      pageToken = page.pageToken;
    } while (pageToken);
    out.end();
    await finished(out, { signal: options.signal });
  } catch (error) {
    // A write cut by a stopped job fails with an AbortError; the job wants the stop's reason.
    throw options.signal.aborted ? options.signal.reason : error;
  } finally {
    out.destroy();
  }
  options.onProgress({ bytesRead: bytes, filesDone: 1, filesTotal: 1 });
  return bytes;
}

/**
 * Reads the source's table into `options.workDir`: one JSON Lines file and the schema it is
 * loaded with. BigQuery failures map to 30-14xx; an abort rethrows the signal's reason.
 */
export async function fetchAnalyticsDbSource(
  input: AnalyticsDbSourceInput,
  options: FetchOptions,
): Promise<FetchedSource> {
  options.signal.throwIfAborted();
  const ref = parseTableRef(input.tableRef);
  const timeoutMs = config.connectorTimeoutMs;
  const step: Step = async (phase, call) => {
    try {
      return await bounded(call, timeoutMs, options.signal);
    } catch (error) {
      throw options.signal.aborted ? options.signal.reason : analyticsDbImportError(error, ref, phase);
    }
  };
  const { bigquery, projectId } = await step('table', openAnalyticsDb(input.credentials, timeoutMs));
  checkScope(ref, projectId, input.datasetId);
  const table = bigquery.dataset(ref.dataset, { projectId: ref.project }).table(ref.table);
  const [metadata] = (await step('table', table.getMetadata())) as [TableMetadata, ...unknown[]];
  const fields = metadata.schema?.fields ?? [];
  // Before any row is read or any job runs: a column the engine cannot hold is 30-1427.
  const columns = declaredColumns(fields);
  const localPath = join(options.workDir, RESULT_FILE);
  const bytes = LISTED_TYPES.has(metadata.type ?? 'TABLE')
    ? await writePages(localPath, fields, (pageToken) => step('rows', readTablePage(table, pageToken)), options)
    : await readView(
        input,
        ref,
        metadata.location,
        (job) =>
          writePages(
            localPath,
            fields,
            (pageToken) => step('rows', readResultPage(job, PAGE_ROWS, pageToken)),
            options,
          ),
        step,
        options,
      );
  return { files: [{ source: input.tableRef, localPath, bytes }], bytesRead: bytes, columns };
}

/** Runs the view's query job, then `read` its result; a job that does not finish is cancelled. */
async function readView(
  input: AnalyticsDbSourceInput,
  ref: TableRef,
  location: string | undefined,
  read: (job: Job) => Promise<number>,
  step: Step,
  options: FetchOptions,
): Promise<number> {
  const timeoutMs = config.connectorTimeoutMs;
  const { bigquery } = await step('query', openAnalyticsDb(input.credentials, timeoutMs, 'query'));
  const job = await startViewJob(bigquery, ref, location, (call) => step('query', call));
  let failure: QueryJobFailure | undefined;
  let running = true;
  try {
    failure = await waitForJob(
      job,
      (call) => step('query', call),
      options.signal,
      () => options.onProgress({ bytesRead: 0, filesDone: 0, filesTotal: 1 }),
    );
    running = false;
  } catch (error) {
    throw options.signal.aborted ? options.signal.reason : error;
  } finally {
    // A query left running would go on using the user's slots for nothing; not bound to the stopped job's signal.
    if (running) await cancelJob(job, (call) => bounded(call, timeoutMs));
  }
  if (failure) throw analyticsDbImportError(failure, ref, 'query');
  return read(job);
}

/**
 * One page of tabledata.list, unparsed (the SDK's parsing turns INT64 and NUMERIC into
 * JavaScript numbers), with TIMESTAMP as int64 microseconds rather than float seconds.
 */
async function readTablePage(table: Table, pageToken: string | undefined): Promise<RowsPage> {
  const [, , response] = await table.getRows({
    autoPaginate: false,
    skipParsing: true,
    maxResults: PAGE_ROWS,
    'formatOptions.useInt64Timestamp': true,
    ...(pageToken ? { pageToken } : {}),
  });
  return (response ?? {}) as RowsPage;
}
