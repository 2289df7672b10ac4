import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Table } from '@google-cloud/bigquery';
import { config } from '../../config';
import { parseTableRef, type TableRef } from '../../data-sources/table-ref';
import { AppError } from '../../errors/app-error';
import type { GoogleCredentials } from '../cloud/token';
import type { FetchedSource, FetchOptions } from '../source-types';
import { bounded, openAnalyticsDb } from './client';
import { analyticsDbImportError, type ImportPhase } from './errors';
import { declaredColumns, lineOf, type BigQueryField } from './types';

/**
 * Reads an analytics_db data source: its table_ref names one table (spec 2.5 gives the kind no
 * query), so the table is read as BigQuery serves a table, with no query job and nothing
 * billed: tables.get for its type and schema, then tabledata.list page by page, each page
 * asked for with the previous one's pageToken. BigQuery ends a page at maxResults rows or
 * about 10 MB, whichever comes first, so a page is what is held in memory; each page is
 * written to one JSON Lines file before the next is asked for, and the engine loads that file
 * with the types the schema declares (types.ts). Every call is bounded by
 * CONNECTOR_TIMEOUT_MS and made once (a failed import is retried by its job when transient).
 */

/** Rows asked for per page; BigQuery may send fewer (its byte limit), never more. */
export const PAGE_ROWS = 10_000;
/** Table types tabledata.list reads; views and external tables have no stored rows to list. */
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
  readonly schema?: { readonly fields?: readonly BigQueryField[] };
}

interface RowsPage {
  readonly rows?: readonly { readonly f?: readonly { readonly v?: unknown }[] }[];
  readonly pageToken?: string;
}

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

/**
 * Reads the source's table into `options.workDir`: one JSON Lines file and the schema it is
 * loaded with. BigQuery failures map to 30-14xx; an abort rethrows the signal's reason.
 */
export async function fetchAnalyticsDbSource(input: AnalyticsDbSourceInput, options: FetchOptions): Promise<FetchedSource> {
  options.signal.throwIfAborted();
  const ref = parseTableRef(input.tableRef);
  const timeoutMs = config.connectorTimeoutMs;
  const step = async <T>(phase: ImportPhase, call: Promise<T>): Promise<T> => {
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
  const type = metadata.type ?? 'TABLE';
  if (!LISTED_TYPES.has(type)) throw new AppError('10-1043', { params: [type], extraDetails: { cause: `${input.tableRef} is a ${type}; tables and snapshots are read` } });
  const fields = metadata.schema?.fields ?? [];
  const columns = declaredColumns(fields);

  const localPath = join(options.workDir, RESULT_FILE);
  const out = createWriteStream(localPath);
  // A write still in flight when a failure destroys the stream reports to no one else.
  out.on('error', () => undefined);
  let bytes = 0;
  try {
    let pageToken: string | undefined;
    do {
      const page = await step('rows', readPage(table, pageToken));
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
  } finally {
    out.destroy();
  }
  options.onProgress({ bytesRead: bytes, filesDone: 1, filesTotal: 1 });
  return { files: [{ source: input.tableRef, localPath, bytes }], bytesRead: bytes, columns };
}

/**
 * One page of tabledata.list, unparsed (the SDK's parsing turns INT64 and NUMERIC into
 * JavaScript numbers), with TIMESTAMP as int64 microseconds rather than float seconds.
 */
async function readPage(table: Table, pageToken: string | undefined): Promise<RowsPage> {
  const [, , response] = await table.getRows({
    autoPaginate: false,
    skipParsing: true,
    maxResults: PAGE_ROWS,
    'formatOptions.useInt64Timestamp': true,
    ...(pageToken ? { pageToken } : {}),
  });
  return (response ?? {}) as RowsPage;
}
