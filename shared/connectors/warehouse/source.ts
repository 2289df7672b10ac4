import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RowStatement } from 'snowflake-sdk';
import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import type { FetchedSource, FetchOptions } from '../source-types';
import { WarehouseSession, type WarehouseTarget } from './client';
import { warehouseError } from './errors';
import { csvLayout } from './values';

/**
 * Reads an rdbms data source: its one read-only statement (checked locally, 30-1009, when the
 * source was defined) runs on the warehouse and its result is streamed into one CSV file for
 * the engine, never held whole in memory.
 *
 * The statement is submitted asynchronously (asyncExec), so no request waits for the query:
 * each call (submit, status poll, result, chunk) stays within CONNECTOR_TIMEOUT_MS however long
 * the query runs. While it runs, every answered poll counts as activity for the job's
 * inactivity watchdog; a job that is stopped cancels the query on Snowflake. The result is
 * then read with the driver's row stream: the first rows come with the result, the rest in
 * chunks the driver downloads a few at a time (resultPrefetch) and frees once streamed, with
 * the file write's backpressure holding the stream.
 */

/** Statuses of a query that is still going (QueryStatus in the driver). */
const RUNNING = new Set(['RUNNING', 'RESUMING_WAREHOUSE', 'QUEUED', 'QUEUED_REPARING_WAREHOUSE', 'NO_DATA']);
/** Pauses between status polls: quick for short queries, then every few seconds. */
const POLL_DELAYS_MS = [100, 250, 500, 1000, 2000, 5000];
/** Least time between two progress reports while rows flow. */
const PROGRESS_INTERVAL_MS = 250;
const RESULT_FILE = 'query-result.csv';

export interface WarehouseSourceInput {
  readonly target: WarehouseTarget;
  readonly query: string;
}

async function waitUntilDone(session: WarehouseSession, queryId: string, options: FetchOptions): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const status = await session.queryStatus(queryId);
    options.onProgress({ bytesRead: 0, filesDone: 0, filesTotal: 1 });
    if (!RUNNING.has(status)) return;
    await sleep(POLL_DELAYS_MS[Math.min(attempt, POLL_DELAYS_MS.length - 1)], undefined, { signal: options.signal });
  }
}

/** Streams the statement's rows into `path` as CSV; answers the bytes written. */
async function writeCsv(statement: RowStatement, path: string, options: FetchOptions): Promise<number> {
  const layout = csvLayout(statement.getColumns() ?? []);
  let bytes = Buffer.byteLength(layout.header);
  let reported = 0;
  const toCsv = new Transform({
    writableObjectMode: true,
    transform(row: unknown[], _encoding, done) {
      const line = layout.line(row);
      bytes += Buffer.byteLength(line);
      if (Date.now() - reported >= PROGRESS_INTERVAL_MS) {
        reported = Date.now();
        options.onProgress({ bytesRead: bytes, filesDone: 0, filesTotal: 1 });
      }
      done(null, line);
    },
  });
  toCsv.push(layout.header);
  const rows: Readable = statement.streamRows();
  await pipeline(rows, toCsv, createWriteStream(path), { signal: options.signal });
  options.onProgress({ bytesRead: bytes, filesDone: 1, filesTotal: 1 });
  return bytes;
}

/**
 * Runs the source's query and writes its result to `options.workDir`. Warehouse failures map
 * to 30-10xx; an abort through `options.signal` rethrows the signal's reason.
 */
export async function fetchWarehouseSource(input: WarehouseSourceInput, options: FetchOptions): Promise<FetchedSource> {
  options.signal.throwIfAborted();
  const timeoutMs = config.connectorTimeoutMs;
  const session = await WarehouseSession.open(input.target, { timeoutMs, signal: options.signal });
  let submitted: RowStatement | undefined;
  let finished = false;
  try {
    submitted = await session.execute(input.query, { asyncExec: true });
    const queryId = submitted.getQueryId();
    await waitUntilDone(session, queryId, options);
    finished = true;
    const result = await session.fetchResult(queryId);
    const localPath = join(options.workDir, RESULT_FILE);
    const bytes = await writeCsv(result, localPath, options).catch((error: unknown) => {
      throw options.signal.aborted ? options.signal.reason : warehouseError(error, 'query');
    });
    return { files: [{ source: `query ${queryId}`, localPath, bytes }], bytesRead: bytes };
  } catch (error) {
    // A query left running would go on using the user's warehouse for nothing.
    if (submitted && !finished) await session.cancel(submitted);
    if (options.signal.aborted) throw options.signal.reason;
    throw error instanceof AppError ? error : warehouseError(error, 'query');
  } finally {
    await session.close();
  }
}
