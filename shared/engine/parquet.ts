import type { DuckDBConnection } from '@duckdb/node-api';
import type { ColumnSchema } from '../model/columns';
import { fileLiteral } from './sql';

/** The FROM item that reads one local Parquet file. */
export function parquetSource(path: string): string {
  return `read_parquet(${fileLiteral(path)})`;
}

/** Column names and DuckDB types of a Parquet file, from its footer (no data is read). */
export async function describeParquet(connection: DuckDBConnection, path: string): Promise<ColumnSchema[]> {
  const reader = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${parquetSource(path)}`);
  return reader.getRowObjects().map((row) => ({
    name: String(row.column_name),
    type: String(row.column_type),
    nullable: row.null === 'YES',
  }));
}

/** Writes the rows of `selectSql` to a Parquet file; answers the number of rows written. */
export async function copyToParquet(connection: DuckDBConnection, selectSql: string, path: string): Promise<number> {
  const result = await connection.run(`COPY (${selectSql}) TO ${fileLiteral(path)} (FORMAT parquet)`);
  return result.rowsChanged;
}
