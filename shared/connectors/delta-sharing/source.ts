import { rename } from 'node:fs/promises';
import { quotedIdentifier, quotedString } from '@duckdb/node-api';
import { config } from '../../config';
import { withDuckDb } from '../../engine/duckdb';
import { AppError } from '../../errors/app-error';
import { downloadAll } from '../bucket-download';
import { serviceUrl } from '../endpoint';
import type { FetchedSource, FetchOptions } from '../source-types';
import {
  DeltaSharingClient,
  shownTable,
  type QueryOptions,
  type SharedFile,
  type TableMetadata,
  type TableRef,
} from './client';
import { discard, openSharedFile } from './download';
import { deltaSharingTransportError } from './errors';
import { engineTypeOf } from './types';

/**
 * Reads a `delta sharing` data source: one query of the table (at its latest version, or the
 * version or timestamp the data source pins), then every file from its pre-signed URL with
 * bucket-download's bounded concurrency, progress and idle bound. Later queries pin the
 * version the first one answered, so every file comes from one snapshot. A URL that has
 * expired (its expirationTimestamp passed, or the store refuses it) is replaced by a fresh
 * query's and tried once more. Partition columns are not inside the files: each file is
 * rewritten with DuckDB with its partitionValues added as typed columns, in the schema's
 * column order, before the engine loads them.
 */

/** A URL that expires sooner than this is replaced before it is used: a download must not start on borrowed time. */
const EXPIRY_MARGIN_MS = 30_000;
/** No byte for this long fails a download (TimeoutError), as for the bucket stores. */
const IDLE_MS = 60_000;

export interface DeltaSharingSourceInput {
  /** The connection's profile, in clear. */
  readonly profileContent: string;
  readonly ref: TableRef;
  /** Time travel: the version or timestamp the data source pins, when it does. */
  readonly pin: Pick<QueryOptions, 'version' | 'timestamp'>;
}

/** A local key per file: the file's position keeps names ours, the extension tells the engine Parquet. */
const keyOf = (index: number) => `${index}.parquet`;

export async function fetchDeltaSharingSource(
  input: DeltaSharingSourceInput,
  options: FetchOptions,
): Promise<FetchedSource> {
  const timeoutMs = config.connectorTimeoutMs;
  const client = DeltaSharingClient.of(input.profileContent, timeoutMs);
  const answer = await client.query(input.ref, input.pin, options.signal);
  if (answer.files.length === 0) throw new AppError('10-1005');
  const files = new Map<string, SharedFile>(answer.files.map((file) => [file.id, file]));
  const ids = answer.files.map((file) => file.id);

  let refreshing: Promise<void> | undefined;
  /** One fresh query of the same version for every download whose URL expired meanwhile. */
  const refresh = () =>
    (refreshing ??= client
      .query(input.ref, { version: answer.version }, options.signal)
      .then((fresh) => {
        for (const file of fresh.files) files.set(file.id, file);
      })
      .finally(() => (refreshing = undefined)));

  const open = async (key: string, signal: AbortSignal) => {
    const id = ids[Number.parseInt(key, 10)]!;
    const current = () => {
      const file = files.get(id);
      // A file the fresh query no longer lists: the table changed under a pinned version.
      if (!file) throw new AppError('30-3012', { params: [`file ${id} of table ${shownTable(input.ref)}`] });
      return file;
    };
    if ((current().expirationTimestamp ?? Infinity) - Date.now() < EXPIRY_MARGIN_MS) await refresh();
    for (let attempt = 1; ; attempt += 1) {
      const incoming = await openSharedFile(serviceUrl(current().url, 'file.url'), signal, timeoutMs);
      if (incoming.statusCode === 200) return incoming;
      const status = incoming.statusCode ?? 0;
      await discard(incoming);
      // Stores refuse an expired pre-signed URL with 403 (S3, GCS) or 410: a fresh query gives a new one.
      if (attempt === 1 && (status === 403 || status === 410)) {
        await refresh();
        continue;
      }
      throw new AppError('30-3007', {
        params: [`a shared file answered HTTP ${status}`],
        extraDetails: { provider_status: status },
      });
    }
  };

  let fetched: FetchedSource;
  try {
    fetched = await downloadAll(
      shownTable(input.ref),
      ids.map((_, index) => keyOf(index)),
      options,
      IDLE_MS,
      open,
    );
  } catch (error) {
    options.signal.throwIfAborted();
    throw deltaSharingTransportError(error, 'the shared file URLs');
  }
  if (answer.metadata.partitionColumns.length > 0)
    await addPartitionColumns(
      fetched.files.map((file, index) => ({ localPath: file.localPath, file: files.get(ids[index]!)! })),
      answer.metadata,
      options,
    );
  return {
    files: fetched.files.map((file, index) => ({ ...file, source: `${shownTable(input.ref)}/${ids[index]}` })),
    bytesRead: fetched.bytesRead,
    sourceVersion: answer.version,
  };
}

/**
 * Rewrites each file with its partition values as columns of the metadata's types (Delta's
 * string serialisation; an empty string is NULL), every column in the schema's order.
 */
async function addPartitionColumns(
  downloaded: readonly { readonly localPath: string; readonly file: SharedFile }[],
  metadata: TableMetadata,
  options: FetchOptions,
): Promise<void> {
  const partition = new Set(metadata.partitionColumns);
  await withDuckDb(
    options.workDir,
    async (connection) => {
      for (const { localPath, file } of downloaded) {
        const columns = metadata.fields.map((field) => {
          const name = quotedIdentifier(field.name);
          if (!partition.has(field.name)) return name;
          const value = file.partitionValues[field.name];
          const literal = value === undefined || value === null || value === '' ? 'NULL' : quotedString(value);
          return `CAST(${literal} AS ${engineTypeOf(field.type)}) AS ${name}`;
        });
        const rewritten = `${localPath}.partitioned`;
        await connection.run(
          `COPY (SELECT ${columns.join(', ')} FROM read_parquet(${quotedString(localPath)})) TO ${quotedString(rewritten)} (FORMAT parquet)`,
        );
        await rename(rewritten, localPath);
      }
    },
    options.signal,
  );
}
