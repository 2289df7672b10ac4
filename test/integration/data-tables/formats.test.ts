/**
 * File formats end to end over HTTP on the twin: gzip-compressed CSV, Parquet and JSON Lines
 * folders in s3rver are imported and previewed; a folder mixing formats and an Excel file are
 * refused with their codes. cloud_store shares the readers: one Parquet and JSON Lines folder
 * and one mixed folder through the GCS fake.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DuckDBInstance, quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  PROJECT,
  createConnection,
  serviceAccountRequest,
  startCloudStoreWorld,
  type CloudStoreWorld,
} from '../../support/cloud-store';
import { createBucketSource, createTable, importAndWait, putObjects, tableOver } from '../../support/imports';

let env: TestTwin;
let api: ApiClient;

/** Parquet files written by a plain DuckDB, one per SELECT. */
async function parquetFiles(selects: readonly string[]): Promise<Buffer[]> {
  const dir = mkdtempSync(join(os.tmpdir(), 'formats-e2e-'));
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    const files: Buffer[] = [];
    for (const [index, select] of selects.entries()) {
      const path = join(dir, `${index}.parquet`);
      await connection.run(`COPY (${select}) TO ${quotedString(path)} (FORMAT parquet)`);
      files.push(readFileSync(path));
    }
    connection.closeSync();
    return files;
  } finally {
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], retryIntervalMs: 10 });
  api = env.admin;
  const [first, second] = await parquetFiles([
    `SELECT 1::BIGINT AS id, 'north' AS region, 10.5::DOUBLE AS amount`,
    `SELECT 15.25::DOUBLE AS amount, 2::BIGINT AS id, 'south' AS region`,
  ]);
  await putObjects(env, 'landing', {
    'gz/a.csv.gz': gzipSync('id,name\n1,Ann\n2,Bob\n'),
    'parquet/part-1.parquet': first!,
    'parquet/part-2.parquet': second!,
    'jsonl/events.jsonl': '{"id": 1, "kind": "open", "ok": true}\n{"id": 2, "kind": "close", "ok": false}\n',
    'mixed/a.csv': 'id\n1\n',
    'mixed/b.parquet': first!,
    'excel/book.xlsx': Buffer.concat([
      Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]),
      Buffer.from('[Content_Types].xml'),
    ]),
  });
});

afterAll(async () => {
  await env?.close();
});

async function importedRows(path: string) {
  const tableId = await tableOver(api, env, path);
  const imported = await importAndWait(api, tableId);
  expect(imported.execution, JSON.stringify(imported.execution)).toMatchObject({ status: 'COMPLETED' });
  const preview = await api.call('previewDataVersion', {
    params: { data_table_id: tableId, version_number: imported.version_number },
  });
  expect(preview.status).toBe(200);
  return { metadata: imported.metadata, rows: preview.body.rows };
}

describe('imports of each format', () => {
  it('reads a folder of gzip-compressed CSV', async () => {
    const { metadata, rows } = await importedRows('landing/gz/');
    expect(metadata).toMatchObject({ row_count: 2, source_files: 1 });
    expect(rows).toEqual([
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bob' },
    ]);
  });

  it('reads a Parquet folder whose files hold the columns in different orders, unified by name', async () => {
    const { metadata, rows } = await importedRows('landing/parquet/');
    expect(metadata).toMatchObject({ row_count: 2, source_files: 2 });
    expect(metadata?.columns.map((column) => [column.name, column.type])).toEqual([
      ['id', 'BIGINT'],
      ['region', 'VARCHAR'],
      ['amount', 'DOUBLE'],
    ]);
    expect(rows).toEqual([
      { id: 1, region: 'north', amount: 10.5 },
      { id: 2, region: 'south', amount: 15.25 },
    ]);
  });

  it('reads a JSON Lines folder', async () => {
    const { metadata, rows } = await importedRows('landing/jsonl/');
    expect(metadata).toMatchObject({ row_count: 2, column_count: 3 });
    expect(rows).toEqual([
      { id: 1, kind: 'open', ok: true },
      { id: 2, kind: 'close', ok: false },
    ]);
  });
});

describe('imports refused', () => {
  it.each([
    ['a folder mixing CSV and Parquet', 'landing/mixed/', '10-1002', /mixes file formats/],
    ['an Excel file', 'landing/excel/book.xlsx', '10-1000', undefined],
  ])('%s ends FAILED with %s', async (_, path, code, cause) => {
    const failed = await importAndWait(api, await tableOver(api, env, path));
    expect(failed.execution).toMatchObject({ status: 'FAILED', error: { code } });
    if (cause) expect(failed.execution.error?.cause).toMatch(cause);
    expect(failed.metadata).toBeNull();
  });
});

describe('cloud_store folders', () => {
  let world: CloudStoreWorld;

  beforeAll(async () => {
    world = await startCloudStoreWorld({});
    const [parquet] = await parquetFiles([`SELECT 7::BIGINT AS id, 'gcs' AS origin`]);
    world.gcs.addBucket('acme_formats', {
      project: PROJECT,
      grants: { [world.loader.email]: 'reader' },
      objects: {
        'parquet/p.parquet': parquet!,
        'ndjson/e.ndjson': '{"id": 8, "origin": "gcs"}\n',
        'mixed/a.csv.gz': gzipSync('id\n1\n'),
        'mixed/b.ndjson': '{"id": 2}\n',
      },
    });
  });

  afterAll(async () => {
    await world?.close();
  });

  async function importOver(path: string) {
    const connectionId = await createConnection(world.api, serviceAccountRequest(world.loader.keyJson));
    const tableId = await createTable(world.api, await createBucketSource(world.api, connectionId, path));
    const imported = await importAndWait(world.api, tableId);
    return { tableId, imported };
  }

  it('reads a Parquet folder and a JSON Lines folder', async () => {
    for (const [path, expected] of [
      ['acme_formats/parquet/', { id: 7, origin: 'gcs' }],
      ['acme_formats/ndjson/', { id: 8, origin: 'gcs' }],
    ] as const) {
      const { tableId, imported } = await importOver(path);
      expect(imported.execution, JSON.stringify(imported.execution)).toMatchObject({ status: 'COMPLETED' });
      const preview = await world.api.call('previewDataVersion', {
        params: { data_table_id: tableId, version_number: imported.version_number },
      });
      expect(preview.body.rows).toEqual([expected]);
    }
  });

  it('refuses a folder mixing gzip-compressed CSV and JSON Lines with 10-1002', async () => {
    const { imported } = await importOver('acme_formats/mixed/');
    expect(imported.execution).toMatchObject({ status: 'FAILED', error: { code: '10-1002' } });
    expect(imported.execution.error?.cause).toMatch(/mixes file formats/);
  });
});
