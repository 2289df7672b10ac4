/**
 * The twin's Athena and Glue stand-ins through the AWS SDK, as the recipe-run worker calls
 * them: a CTAS over tables whose manifests list Parquet files in the local S3 runs in DuckDB
 * and writes its rows as Parquet at its external location, with Trino's lowercase column
 * names and BIGINT sums; a workgroup reads only its own tenant's databases; the scan cutoff
 * cancels a query; StopQueryExecution cancels a queued one; what DuckDB would answer
 * differently from Trino is refused, not answered.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AthenaClient,
  CreateWorkGroupCommand,
  GetQueryExecutionCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type QueryExecution,
} from '@aws-sdk/client-athena';
import { CreateDatabaseCommand, CreateTableCommand, GlueClient } from '@aws-sdk/client-glue';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalAthena } from '../../../infra/local/athena';
import { startLocalGlue, type LocalGlue } from '../../../infra/local/glue';
import type { JsonProtocolServer } from '../../../infra/local/json-protocol';
import { LOCAL_S3_CREDENTIALS, startLocalS3, type LocalS3 } from '../../../infra/local/s3';

const BUCKET = 'data';
const client = { region: 'us-east-1', credentials: LOCAL_S3_CREDENTIALS };
let s3Server: LocalS3;
let glueServer: LocalGlue;
const athenaServers: JsonProtocolServer[] = [];
let s3: S3Client;
let glue: GlueClient;
const dir = mkdtempSync(join(tmpdir(), 'athena-test-'));

async function athenaWith(queueMs = 0): Promise<AthenaClient> {
  const server = await startLocalAthena({ catalog: glueServer.catalog, s3: () => s3, queueMs });
  athenaServers.push(server);
  return new AthenaClient({ ...client, endpoint: server.endpoint });
}

/** A Parquet file of `sql`'s rows in the local S3, and a table of `database` over a manifest listing it. */
async function table(database: string, name: string, sql: string): Promise<void> {
  const path = join(dir, `${database}-${name}.parquet`);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`COPY (${sql}) TO '${path}' (FORMAT parquet)`);
  connection.closeSync();
  instance.closeSync();
  const key = `${database}/${name}/data.parquet`;
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: readFileSync(path) }));
  await s3.send(
    new PutObjectCommand({
      Bucket: BUCKET,
      Key: `${database}/${name}/in/symlink.txt`,
      Body: `s3://${BUCKET}/${key}\n`,
    }),
  );
  await glue.send(
    new CreateTableCommand({
      DatabaseName: database,
      TableInput: { Name: name, StorageDescriptor: { Location: `s3://${BUCKET}/${database}/${name}/in/` } },
    }),
  );
}

async function until(athena: AthenaClient, id: string): Promise<QueryExecution> {
  for (;;) {
    const { QueryExecution: execution } = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
    if (['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(execution!.Status!.State!)) return execution!;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let counter = 0;
async function ctas(athena: AthenaClient, workgroup: string, query: string) {
  counter += 1;
  const location = `s3://${BUCKET}/out/${counter}/`;
  const { QueryExecutionId } = await athena.send(
    new StartQueryExecutionCommand({
      WorkGroup: workgroup,
      QueryExecutionContext: { Database: 'dps_acme' },
      QueryString: `CREATE TABLE "dps_acme"."out${counter}" WITH (format = 'PARQUET', external_location = '${location}') AS ${query}`,
    }),
  );
  return { id: QueryExecutionId!, prefix: `out/${counter}/` };
}

async function rowsAt(prefix: string): Promise<unknown[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  const rows: unknown[] = [];
  for (const object of listed.Contents ?? []) {
    const body = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: object.Key }));
    const path = join(dir, `read-${counter}.parquet`);
    writeFileSync(path, await body.Body!.transformToByteArray());
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(`SELECT * FROM '${path}' ORDER BY ALL`);
    rows.push(...reader.getRowObjectsJson());
    const types = await connection.runAndReadAll(`DESCRIBE SELECT * FROM '${path}'`);
    rows.push(types.getRowObjectsJson().map((row) => `${String(row.column_name)} ${String(row.column_type)}`));
    connection.closeSync();
    instance.closeSync();
  }
  return rows;
}

let athena: AthenaClient;

beforeAll(async () => {
  s3Server = await startLocalS3({ buckets: [BUCKET] });
  s3 = new S3Client({ ...client, endpoint: s3Server.endpoint, forcePathStyle: true });
  glueServer = await startLocalGlue();
  glue = new GlueClient({ ...client, endpoint: glueServer.endpoint });
  athena = await athenaWith();
  for (const tenant of ['acme', 'other']) {
    await glue.send(new CreateDatabaseCommand({ DatabaseInput: { Name: `dps_${tenant}` }, Tags: { tenant } }));
    await athena.send(
      new CreateWorkGroupCommand({
        Name: `dps-${tenant}`,
        Configuration: { BytesScannedCutoffPerQuery: 10_000_000 },
        Tags: [{ Key: 'tenant', Value: tenant }],
      }),
    );
  }
  await table(
    'dps_acme',
    'orders',
    "SELECT * FROM (VALUES ('north', 5::BIGINT), ('south', 2), ('north', 4)) t(Region, Amount)",
  );
  await table('dps_other', 'secrets', "SELECT 'hidden' AS secret");
});

afterAll(async () => {
  for (const server of athenaServers) await server.close();
  await glueServer?.close();
  await s3Server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the local Athena', () => {
  it('runs a CTAS over a table’s manifest and writes Parquet with Trino’s names and types', async () => {
    const { id, prefix } = await ctas(
      athena,
      'dps-acme',
      'SELECT Region, sum(Amount) AS Total, 7 / 2 AS half FROM "dps_acme"."orders" GROUP BY Region',
    );
    const execution = await until(athena, id);
    expect(execution.Status?.State).toBe('SUCCEEDED');
    expect(execution.Statistics?.DataScannedInBytes).toBeGreaterThan(0);
    expect(await rowsAt(prefix)).toEqual([
      { region: 'north', total: '9', half: 3 },
      { region: 'south', total: '2', half: 3 },
      ['region VARCHAR', 'total BIGINT', 'half INTEGER'],
    ]);
  });

  it('lets a workgroup read only its own tenant’s tables: not another’s, not information_schema, not a bucket path', async () => {
    for (const [query, reason] of [
      ['SELECT * FROM "dps_other"."secrets"', 'PERMISSION_DENIED'],
      ['SELECT * FROM information_schema.tables', 'PERMISSION_DENIED'],
      // A quoted path is a table name with dots, read as database "s3://data/dps_other/secrets/data" here.
      [`SELECT * FROM "s3://${BUCKET}/dps_other/secrets/data.parquet"`, 'PERMISSION_DENIED'],
    ] as const) {
      const { id, prefix } = await ctas(athena, 'dps-acme', query);
      const execution = await until(athena, id);
      expect(execution.Status, query).toMatchObject({
        State: 'FAILED',
        AthenaError: { ErrorCategory: 2, ErrorMessage: expect.stringContaining(reason) },
      });
      expect(await rowsAt(prefix)).toEqual([]);
    }
  });

  it('refuses other catalogues and what DuckDB would answer differently', async () => {
    for (const [query, reason] of [
      ['SELECT * FROM hive.dps_acme.orders', 'CATALOG_NOT_FOUND'],
      ["SELECT date_trunc('month', DATE '2024-05-17') AS m", 'date_trunc'],
      ["SELECT DATE '2024-05-17' + INTERVAL '1' DAY AS d", 'INTERVAL'],
      ["SELECT concat('a', NULL) AS c", 'concat'],
    ] as const) {
      const { id } = await ctas(athena, 'dps-acme', query);
      const execution = await until(athena, id);
      expect(execution.Status?.State, query).toBe('FAILED');
      expect(execution.Status?.AthenaError?.ErrorMessage, query).toContain(reason);
    }
  });

  it('cancels a query past its workgroup’s bytes-scanned cutoff', async () => {
    await athena.send(
      new CreateWorkGroupCommand({
        Name: 'dps-acme-tiny',
        Configuration: { BytesScannedCutoffPerQuery: 10 },
        Tags: [{ Key: 'tenant', Value: 'acme' }],
      }),
    );
    const { id, prefix } = await ctas(athena, 'dps-acme-tiny', 'SELECT * FROM "dps_acme"."orders"');
    const execution = await until(athena, id);
    expect(execution.Status).toMatchObject({
      State: 'CANCELLED',
      StateChangeReason: 'Bytes scanned limit was exceeded',
    });
    expect(await rowsAt(prefix)).toEqual([]);
  });

  it('stops a query with StopQueryExecution: CANCELLED, and nothing written', async () => {
    const queued = await athenaWith(60_000);
    await queued.send(
      new CreateWorkGroupCommand({ Name: 'dps-acme', Configuration: {}, Tags: [{ Key: 'tenant', Value: 'acme' }] }),
    );
    const { id, prefix } = await ctas(queued, 'dps-acme', 'SELECT * FROM "dps_acme"."orders"');
    await queued.send(new StopQueryExecutionCommand({ QueryExecutionId: id }));
    const execution = await until(queued, id);
    expect(execution.Status?.State).toBe('CANCELLED');
    expect(await rowsAt(prefix)).toEqual([]);
  });
});
