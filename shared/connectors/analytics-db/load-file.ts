import { quotedIdentifier } from '@duckdb/node-api';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { withDuckDb } from '../../engine/duckdb';
import { describeParquet, parquetSource } from '../../engine/parquet';
import { fileLiteral } from '../../engine/sql';

/** A column of a BigQuery load's schema (TableFieldSchema). */
export interface LoadField {
  readonly name: string;
  readonly type: string;
  readonly mode: 'NULLABLE';
}

/** The file a load job uploads, and the schema it declares. */
export interface LoadFile {
  readonly localPath: string;
  readonly bytes: number;
  readonly fields: readonly LoadField[];
}

/**
 * A DuckDB column type as BigQuery declares it, and how its values are written in JSON.
 * Integers beyond 53 bits, decimals and anything without a JSON form of its own go as text,
 * which BigQuery parses into the declared type: nothing is rounded on the way.
 */
function bigQueryColumn(duckType: string): { readonly type: string; readonly asText: boolean } {
  const type = duckType.toUpperCase();
  if (type === 'BOOLEAN') return { type: 'BOOLEAN', asText: false };
  if (['TINYINT', 'SMALLINT', 'INTEGER', 'UTINYINT', 'USMALLINT'].includes(type))
    return { type: 'INTEGER', asText: false };
  if (['BIGINT', 'UINTEGER'].includes(type)) return { type: 'INTEGER', asText: true };
  if (['HUGEINT', 'UBIGINT', 'UHUGEINT'].includes(type)) return { type: 'BIGNUMERIC', asText: true };
  if (['FLOAT', 'DOUBLE'].includes(type)) return { type: 'FLOAT', asText: false };
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(type);
  // NUMERIC holds 29 digits before the point and 9 after; anything wider is BIGNUMERIC.
  if (decimal)
    return {
      type: Number(decimal[2]) <= 9 && Number(decimal[1]) - Number(decimal[2]) <= 29 ? 'NUMERIC' : 'BIGNUMERIC',
      asText: true,
    };
  if (type === 'DATE') return { type: 'DATE', asText: true };
  if (type === 'TIME') return { type: 'TIME', asText: true };
  if (type === 'TIMESTAMP' || type === 'TIMESTAMP_NS' || type === 'TIMESTAMP_MS' || type === 'TIMESTAMP_S')
    return { type: 'DATETIME', asText: true };
  if (type === 'TIMESTAMP WITH TIME ZONE') return { type: 'TIMESTAMP', asText: true };
  // Strings, and nested or other types as their text.
  return { type: 'STRING', asText: true };
}

/**
 * Turns the export's Parquet file into newline-delimited JSON beside it, with the BigQuery
 * schema of its columns (bigQueryColumn): the load declares the types instead of leaving
 * BigQuery to infer them, so a table is typed the same way whatever its rows hold. BLOBs are
 * written in base64, which BigQuery reads for BYTES.
 */
export async function jsonLinesForLoad(parquetPath: string): Promise<LoadFile> {
  const localPath = join(dirname(parquetPath), 'load.jsonl');
  return withDuckDb(dirname(parquetPath), async (connection) => {
    const columns = await describeParquet(connection, parquetPath);
    const fields: LoadField[] = [];
    const select = columns.map((column) => {
      const quoted = quotedIdentifier(column.name);
      if (column.type.toUpperCase() === 'BLOB') {
        fields.push({ name: column.name, type: 'BYTES', mode: 'NULLABLE' });
        return `base64(${quoted}) AS ${quoted}`;
      }
      const mapped = bigQueryColumn(column.type);
      fields.push({ name: column.name, type: mapped.type, mode: 'NULLABLE' });
      return mapped.asText ? `CAST(${quoted} AS VARCHAR) AS ${quoted}` : quoted;
    });
    await connection.run(
      `COPY (SELECT ${select.join(', ')} FROM ${parquetSource(parquetPath)}) TO ${fileLiteral(localPath)} (FORMAT json)`,
    );
    return { localPath, bytes: (await stat(localPath)).size, fields };
  });
}
