/**
 * The import bench's bare script: S3 GetObject of the source CSV streamed to a local file,
 * DuckDB COPY of read_csv to Parquet, S3 PutObject of the Parquet file, nothing of ours around
 * them. It runs in the bench process with DuckDB's defaults (the bare script proper) or with
 * the import worker's own engine settings (shared/engine/duckdb.ts), and in the twin's process
 * with those settings (bench/import-twin-process.ts): the three together split the pipeline's
 * gap into what the worker's engine settings cost and what sharing one process with the
 * twin's stores and API costs.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { withDuckDb } from '../shared/engine/duckdb';
import { bareDuckDbCopy, sqlLiteral } from './bare-duckdb';
import { COPY_MS, TRANSFER_MS, upload, withTimeout } from './import-twin';
import { now, SOURCE_BUCKET, type RunResult } from './import-protocol';

/** The source CSV's key in SOURCE_BUCKET. */
export const SOURCE_KEY = 'import/data.csv';

/** Which DuckDB the COPY runs in: a fresh instance with DuckDB's defaults, or the import worker's engine. */
export type BareEngine = 'defaults' | 'worker';

/** The COPY of the CSV to Parquet; the rows written. */
export function csvToParquet(
  engine: BareEngine,
  csvPath: string,
  parquetPath: string,
  workDir: string,
): Promise<number> {
  const copy = `COPY (SELECT * FROM read_csv(${sqlLiteral(csvPath)})) TO ${sqlLiteral(parquetPath)} (FORMAT parquet)`;
  if (engine === 'defaults') return bareDuckDbCopy([], copy);
  return withDuckDb(workDir, async (connection) => {
    const result = await withTimeout(connection.run(copy), COPY_MS, 'DuckDB COPY', () => connection.interrupt());
    return result.rowsChanged;
  });
}

/** One bare run in `dir` (files removed after): its time and its three stages; fails unless it wrote `rows` rows. */
export async function bareImport(
  s3: S3Client,
  dir: string,
  label: string,
  rows: number,
  engine: BareEngine,
): Promise<RunResult> {
  const csvPath = join(dir, `${label}.csv`);
  const parquetPath = join(dir, `${label}.parquet`);
  try {
    const begin = now();
    const { Body: body } = await s3.send(new GetObjectCommand({ Bucket: SOURCE_BUCKET, Key: SOURCE_KEY }), {
      abortSignal: AbortSignal.timeout(TRANSFER_MS),
    });
    await pipeline(body as Readable, createWriteStream(csvPath), { signal: AbortSignal.timeout(TRANSFER_MS) });
    const downloaded = now();
    const written = await csvToParquet(engine, csvPath, parquetPath, dir);
    const copied = now();
    await upload(s3, SOURCE_BUCKET, `bare/${label}.parquet`, parquetPath, 'application/vnd.apache.parquet');
    const end = now();
    if (written !== rows) throw new Error(`bare script (${label}): COPY wrote ${written} rows, expected ${rows}`);
    return {
      ms: end - begin,
      stages: { download: downloaded - begin, copy: copied - downloaded, upload: end - copied },
    };
  } finally {
    await Promise.all([rm(csvPath, { force: true }), rm(parquetPath, { force: true })]);
  }
}
