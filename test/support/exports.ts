/**
 * Building blocks of export tests: reading what an export wrote back from the twin's S3, the
 * source version's Parquet from the data bucket, and rows of Parquet files through DuckDB.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance, quotedString } from '@duckdb/node-api';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';
import { DATA_BUCKET } from '../../infra/local/twin';
import type { ApiClient, ResponseBody } from './api-client';
import type { TestTwin } from './harness';
import { waitForJob } from './imports';

export function localS3(env: TestTwin): S3Client {
  return new S3Client({
    endpoint: env.twin.s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: LOCAL_S3_CREDENTIALS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export async function getObject(env: TestTwin, bucket: string, key: string): Promise<Buffer> {
  const s3 = localS3(env);
  try {
    const result = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await result.Body!.transformToByteArray());
  } finally {
    s3.destroy();
  }
}

export async function listKeys(env: TestTwin, bucket: string, prefix: string): Promise<string[]> {
  const s3 = localS3(env);
  try {
    const listing = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    return (listing.Contents ?? []).map((object) => object.Key!).sort();
  } finally {
    s3.destroy();
  }
}

/** The Parquet file of a data table version (data or sample), as the import wrote it. */
export function sourceParquet(env: TestTwin, tableId: number, versionNumber: number, sample = false): Promise<Buffer> {
  return getObject(
    env,
    DATA_BUCKET,
    `${env.twin.admin.tenant_id}/tables/${tableId}/v${versionNumber}/${sample ? 'sample' : 'data'}.parquet`,
  );
}

export interface QueryResult {
  readonly rows: Record<string, unknown>[];
  readonly types: Record<string, string>;
}

/**
 * Runs `sql` in a plain DuckDB where `files[i]` is the view f<i> (Parquet, or CSV with
 * `csv`), and answers the rows as JSON-ready values with the result's column types.
 */
export async function queryFiles(
  files: readonly Buffer[],
  sql: string,
  format: 'parquet' | 'csv' = 'parquet',
): Promise<QueryResult> {
  const dir = mkdtempSync(join(os.tmpdir(), 'exports-e2e-'));
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    for (const [index, file] of files.entries()) {
      const path = join(dir, `${index}.${format}`);
      writeFileSync(path, file);
      const reader =
        format === 'parquet' ? `read_parquet(${quotedString(path)})` : `read_csv(${quotedString(path)}, header = true)`;
      await connection.run(`CREATE VIEW f${index} AS SELECT * FROM ${reader}`);
    }
    const reader = await connection.runAndReadAll(sql);
    const names = reader.columnNames();
    const types = Object.fromEntries(names.map((name, index) => [name, reader.columnType(index).toString()]));
    const rows = reader.getRowObjectsJson() as Record<string, unknown>[];
    connection.closeSync();
    return { rows, types };
  } finally {
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The CSV one COPY of `select` writes in a plain DuckDB where the Parquet `parquet` is the view
 * f0, with RFC 4180's options and a header: what a CSV export of the same rows must equal,
 * byte for byte, however the export wrote it.
 */
export async function csvByDuckDb(parquet: Buffer, select: string): Promise<Buffer> {
  const dir = mkdtempSync(join(os.tmpdir(), 'exports-csv-'));
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    const source = join(dir, 'source.parquet');
    const out = join(dir, 'out.csv');
    writeFileSync(source, parquet);
    await connection.run(`CREATE VIEW f0 AS SELECT * FROM read_parquet(${quotedString(source)})`);
    await connection.run(
      `COPY (${select}) TO ${quotedString(out)} (FORMAT csv, HEADER true, DELIMITER ',', QUOTE '"')`,
    );
    connection.closeSync();
    return readFileSync(out);
  } finally {
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function waitForDirectExport(api: ApiClient, jobId: string): Promise<ResponseBody<'getDirectExport'>> {
  return waitForJob(
    () => api.call('getDirectExport', { params: { job_id: jobId } }),
    (body) => body.status,
  );
}

export function waitForMultiPartExport(api: ApiClient, jobId: string): Promise<ResponseBody<'getMultiPartExport'>> {
  return waitForJob(
    () => api.call('getMultiPartExport', { params: { job_id: jobId } }),
    (body) => ({ status: body.status }),
  );
}
