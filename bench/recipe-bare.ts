/**
 * The recipe-run bench's bare script (bench/recipe-run.ts), run as a process of its own each
 * round, as one would run such a script: S3 GetObject of the two tables' Parquet to local
 * files, the recipe's SQL in a fresh in-memory DuckDB COPY'd to Parquet, S3 PutObject of the
 * result; then the same query and COPY again on the local files (DuckDB alone). It prints the
 * two times as JSON.
 *
 * Why a fresh process: in the long-lived bench process the same script took 100–120 ms in its
 * first rounds and 150–240 ms later. Four helper threads of that process, idle in the first
 * round, took 120–200 ms of CPU a round later, on two cores, from the script's own work; with
 * `--single-threaded-gc` the script stayed at 100–120 ms: they were V8's parallel
 * garbage-collector threads.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import * as z from 'zod';
import { bareDuckDbCopy, sqlLiteral } from './bare-duckdb';
import { s3Client, TRANSFER_MS, upload } from './import-twin';
import { now } from './import-protocol';

/** The recipe: each order joined with its customer (id modulo the small table's size), then totals per segment and category. */
export const recipeSql = (smallRows: number) =>
  `SELECT c.segment, o.category, count(*)::BIGINT AS orders, round(sum(o.amount), 2) AS total FROM orders o JOIN customers c ON c.id = o.id % ${smallRows} + 1 GROUP BY c.segment, o.category`;

/** What the bench asks of one round. */
export const BareRound = z.object({
  s3Endpoint: z.string(),
  dataBucket: z.string(),
  ordersKey: z.string(),
  customersKey: z.string(),
  /** Where the result is PUT: bucket and key. */
  outBucket: z.string(),
  outKey: z.string(),
  /** A scratch folder of the bench's. */
  dir: z.string(),
  smallRows: z.int().positive(),
});
export type BareRound = z.infer<typeof BareRound>;

export const BareTimes = z.object({
  bareMs: z.number(),
  /** The bare script's stages, one after the other: the two GETs in parallel, DuckDB (instance, views, COPY), the PUT. */
  stages: z.object({ downloadMs: z.number(), queryMs: z.number(), uploadMs: z.number() }),
  duckDbMs: z.number(),
  bareRows: z.number(),
  duckDbRows: z.number(),
});
export type BareTimes = z.infer<typeof BareTimes>;

/** The recipe's SQL over the two Parquet files in a fresh in-memory DuckDB, COPY'd to `outPath`: the rows written. */
function duckDbQuery(ordersPath: string, customersPath: string, outPath: string, smallRows: number): Promise<number> {
  return bareDuckDbCopy(
    [
      `CREATE VIEW orders AS SELECT * FROM read_parquet(${sqlLiteral(ordersPath)})`,
      `CREATE VIEW customers AS SELECT * FROM read_parquet(${sqlLiteral(customersPath)})`,
    ],
    `COPY (${recipeSql(smallRows)}) TO ${sqlLiteral(outPath)} (FORMAT parquet)`,
  );
}

async function download(s3: S3Client, bucket: string, key: string, path: string): Promise<void> {
  const { Body: body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }), {
    abortSignal: AbortSignal.timeout(TRANSFER_MS),
  });
  await pipeline(body as Readable, createWriteStream(path), { signal: AbortSignal.timeout(TRANSFER_MS) });
}

async function bareRound(round: BareRound): Promise<BareTimes> {
  const s3 = s3Client(round.s3Endpoint);
  const local = {
    orders: join(round.dir, 'orders.parquet'),
    customers: join(round.dir, 'customers.parquet'),
    out: join(round.dir, 'out.parquet'),
  };
  try {
    // Not timed: the connection to the store and DuckDB's native module, which the twin's worker has warm too.
    await s3.send(new HeadObjectCommand({ Bucket: round.dataBucket, Key: round.ordersKey }));
    (await (await import('@duckdb/node-api')).DuckDBInstance.create(':memory:')).closeSync();

    const bareStart = now();
    await Promise.all([
      download(s3, round.dataBucket, round.ordersKey, local.orders),
      download(s3, round.dataBucket, round.customersKey, local.customers),
    ]);
    const downloaded = now();
    const bareRows = await duckDbQuery(local.orders, local.customers, local.out, round.smallRows);
    const queried = now();
    await upload(s3, round.outBucket, round.outKey, local.out, 'application/vnd.apache.parquet');
    const bareMs = now() - bareStart;
    const stages = { downloadMs: downloaded - bareStart, queryMs: queried - downloaded, uploadMs: now() - queried };
    await rm(local.out, { force: true });

    const duckStart = now();
    const duckDbRows = await duckDbQuery(local.orders, local.customers, local.out, round.smallRows);
    const duckDbMs = now() - duckStart;
    return { bareMs, stages, duckDbMs, bareRows, duckDbRows };
  } finally {
    s3.destroy();
    await Promise.all(Object.values(local).map((path) => rm(path, { force: true })));
  }
}

// Run by bench/recipe-run.ts as `node --import tsx bench/recipe-bare.ts '<BareRound JSON>'`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const round = BareRound.parse(JSON.parse(process.argv[2] ?? ''));
  process.stdout.write(JSON.stringify(await bareRound(round)));
}
