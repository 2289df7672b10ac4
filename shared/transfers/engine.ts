import { quotedIdentifier } from '@duckdb/node-api';
import { withDuckDb } from '../engine/duckdb';
import { describeParquet, parquetSource } from '../engine/parquet';
import { sliceOf } from '../exports/engine';
import type { RowReader } from './run';

/**
 * A transfer's rows from the source Parquet (a local copy), through DuckDB: `columns` in that
 * order, one query per batch over the rows it needs, so memory holds one batch whatever the
 * source's size and a resumed transfer skips what was sent (exports' row slices, pushed into
 * the scan). Values come as the engine gives them (bigints, decimal and date objects), for the
 * type mapping to turn into JSON scalars.
 */
export function withParquetRows<T>(
  sourcePath: string,
  columns: readonly string[],
  workDir: string,
  signal: AbortSignal,
  use: (reader: RowReader) => Promise<T>,
): Promise<T> {
  return withDuckDb(
    workDir,
    async (connection) => {
      const schema = await describeParquet(connection, sourcePath);
      const select = `SELECT ${columns.map((name) => quotedIdentifier(name)).join(', ')} FROM ${parquetSource(sourcePath)}`;
      return use({
        async *batches(offset, size) {
          for (let start = offset; ; start += size) {
            const rows = (await connection.runAndReadAll(sliceOf(select, schema, start, size))).getRows();
            if (rows.length > 0) yield rows;
            if (rows.length < size) return;
          }
        },
      });
    },
    signal,
  );
}
