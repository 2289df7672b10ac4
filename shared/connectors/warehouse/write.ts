import { quotedIdentifier, type DuckDBConnection } from '@duckdb/node-api';
import { dirname } from 'node:path';
import type { Bind } from 'snowflake-sdk';
import { config } from '../../config';
import { withDuckDb } from '../../engine/duckdb';
import { describeParquet, parquetSource } from '../../engine/parquet';
import type { ColumnSchema } from '../../model/columns';
import type { WriteOptions } from '../write-options';
import { withWarehouseSession, type WarehouseSession, type WarehouseTarget } from './client';

/** Most bind values one INSERT carries, and most rows: what a statement holds in memory, bounded. */
const MAX_BINDS = 16_000;
const MAX_ROWS = 1_000;

/**
 * A DuckDB column as Snowflake declares it, and whether its values are bound as text (which
 * Snowflake converts to the column's type on insert). Integers wider than 53 bits, decimals,
 * dates and times go as text so nothing is rounded; BLOBs as hex, Snowflake's default
 * BINARY_INPUT_FORMAT; anything without a Snowflake type of its own as its text in a VARCHAR.
 */
function snowflakeColumn(duckType: string): { readonly type: string; readonly asText: boolean } {
  const type = duckType.toUpperCase();
  if (type === 'BOOLEAN') return { type: 'BOOLEAN', asText: false };
  if (['TINYINT', 'SMALLINT', 'INTEGER', 'UTINYINT', 'USMALLINT'].includes(type))
    return { type: 'NUMBER(38,0)', asText: false };
  if (['BIGINT', 'UINTEGER', 'UBIGINT', 'HUGEINT', 'UHUGEINT'].includes(type))
    return { type: 'NUMBER(38,0)', asText: true };
  if (['FLOAT', 'DOUBLE'].includes(type)) return { type: 'FLOAT', asText: false };
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(type);
  if (decimal) return { type: `NUMBER(${decimal[1]},${decimal[2]})`, asText: true };
  if (type === 'DATE' || type === 'TIME') return { type, asText: true };
  if (type === 'TIMESTAMP WITH TIME ZONE') return { type: 'TIMESTAMP_TZ', asText: true };
  if (type.startsWith('TIMESTAMP')) return { type: 'TIMESTAMP_NTZ', asText: true };
  if (type === 'BLOB') return { type: 'BINARY', asText: true };
  return { type: 'VARCHAR', asText: true };
}

/** A column name as Snowflake takes it quoted: exactly as the source names it. */
const quotedName = (name: string): string => `"${name.replaceAll('"', '""')}"`;

function selectFor(columns: readonly ColumnSchema[]): string {
  return columns
    .map((column) => {
      const quoted = quotedIdentifier(column.name);
      if (column.type.toUpperCase() === 'BLOB') return `hex(${quoted}) AS ${quoted}`;
      return snowflakeColumn(column.type).asText ? `CAST(${quoted} AS VARCHAR) AS ${quoted}` : quoted;
    })
    .join(', ');
}

/** A value DuckDB read (after selectFor's casts) as a bind: primitives as they are, anything else as text. */
const bindOf = (value: unknown): Bind =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : String(value);

/**
 * Streams the Parquet file's rows from DuckDB in chunks and runs one multi-row INSERT per
 * batch of `batchRows`: no more than a chunk and a batch are held at once.
 */
async function insertBatches(
  duck: DuckDBConnection,
  path: string,
  columns: readonly ColumnSchema[],
  insert: (rows: readonly Bind[][]) => Promise<void>,
  batchRows: number,
): Promise<void> {
  const result = await duck.stream(`SELECT ${selectFor(columns)} FROM ${parquetSource(path)}`);
  let batch: Bind[][] = [];
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    for (const row of chunk.getRows()) {
      batch.push(row.map(bindOf));
      if (batch.length === batchRows) {
        await insert(batch);
        batch = [];
      }
    }
  }
  if (batch.length > 0) await insert(batch);
}

async function insertRows(
  session: WarehouseSession,
  table: string,
  columns: readonly ColumnSchema[],
  rows: readonly Bind[][],
): Promise<void> {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  await session.run(
    `INSERT INTO ${table} (${columns.map((column) => quotedName(column.name)).join(', ')}) VALUES ${rows.map(() => tuple).join(', ')}`,
    rows.flat(),
  );
}

/**
 * Writes the export's Parquet file into `table` (an unquoted name, which Snowflake resolves
 * upper-cased in the connection's database and schema) through snowflake-sdk:
 * `CREATE TABLE IF NOT EXISTS` with the export's columns in Snowflake types (DDL, which
 * Snowflake commits on its own, so it comes first), then one transaction that deletes the
 * table's rows and inserts the export's in multi-row INSERTs with binds, and commits. The
 * export replaces the table's rows, as the analytics_db writer does; on any failure the
 * transaction is rolled back, so the table keeps the rows it had (none when it was just
 * created), and a session that dies mid-way has its transaction dropped by Snowflake.
 * Failures map to 30-10xx. Progress counts rows inserted.
 */
export async function insertIntoWarehouse(
  target: WarehouseTarget,
  table: string,
  parquetPath: string,
  options: WriteOptions,
): Promise<void> {
  options.signal.throwIfAborted();
  await withDuckDb(dirname(parquetPath), async (duck) => {
    const columns = await describeParquet(duck, parquetPath);
    const batchRows = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_BINDS / Math.max(1, columns.length))));
    await withWarehouseSession(
      target,
      { timeoutMs: config.connectorTimeoutMs, signal: options.signal },
      async (session) => {
        const definition = columns
          .map((column) => `${quotedName(column.name)} ${snowflakeColumn(column.type).type}`)
          .join(', ');
        await session.run(`CREATE TABLE IF NOT EXISTS ${table} (${definition})`);
        await session.run('BEGIN');
        try {
          await session.run(`DELETE FROM ${table}`);
          let inserted = 0;
          await insertBatches(
            duck,
            parquetPath,
            columns,
            async (rows) => {
              await insertRows(session, table, columns, rows);
              inserted += rows.length;
              options.onProgress(inserted);
            },
            batchRows,
          );
          await session.run('COMMIT');
        } catch (error) {
          // Best effort: when the session is gone, Snowflake drops its open transaction itself.
          await session.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      },
    );
  });
}
