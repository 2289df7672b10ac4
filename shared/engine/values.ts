import { quotedIdentifier, type DuckDBConnection } from '@duckdb/node-api';
import type { ColumnSchema, DataRow, DataValue } from '../model/columns';
import { typeFamily } from './column-types';
import { fileLiteral } from './sql';

/**
 * JSON-safe values, computed by DuckDB itself so that previews, sample.jsonl and the min/max
 * of an analysis follow one rule set:
 *
 * - BOOLEAN → boolean; TINYINT…INTEGER, UTINYINT…UINTEGER → number;
 * - BIGINT, HUGEINT, UBIGINT, UHUGEINT → number within ±(2^53 − 1), else the exact digits as a string;
 * - FLOAT, DOUBLE → number; NaN, Infinity, -Infinity → the strings "NaN", "Infinity", "-Infinity";
 * - DECIMAL → string with every digit of its scale ("1.500");
 * - DATE → "YYYY-MM-DD"; TIMESTAMP → "YYYY-MM-DDTHH:MM:SS[.fraction]";
 *   TIMESTAMP WITH TIME ZONE → the same in UTC with "Z";
 * - VARCHAR → string; anything else (TIME, UUID, BLOB, LIST, STRUCT…) → DuckDB's text form.
 *
 * Why not @duckdb/node-api's getRowObjectsJson(): it turns every BIGINT into a string and
 * prints timestamps with a space instead of ISO 8601's "T"; converting in JS is also several
 * times slower than letting DuckDB write the sample.
 */

const MAX_SAFE_INTEGER = String(Number.MAX_SAFE_INTEGER);

/** SQL regex literal: the date part of DuckDB's timestamp text and the space ISO 8601 writes as "T". */
const DATE_THEN_SPACE = String.raw`'^(-?\d+-\d\d-\d\d) '`;

/** SQL of type JSON rendering `operand`, a value of DuckDB type `typeName`, by the rules above. */
export function jsonSafeSql(operand: string, typeName: string): string {
  switch (typeFamily(typeName)) {
    case 'boolean':
    case 'small-integer':
    case 'text':
      return `to_json(${operand})`;
    case 'big-integer':
      return `CASE WHEN ${operand} BETWEEN -${MAX_SAFE_INTEGER} AND ${MAX_SAFE_INTEGER} THEN to_json(${operand}) ELSE to_json(${operand}::VARCHAR) END`;
    case 'unsigned-big-integer':
      return `CASE WHEN ${operand} <= ${MAX_SAFE_INTEGER} THEN to_json(${operand}) ELSE to_json(${operand}::VARCHAR) END`;
    case 'float':
      // to_json writes NaN and Infinity bare, which is not JSON. FLOAT widens to DOUBLE, as
      // a JS number would.
      return `CASE WHEN isfinite(${operand}) THEN to_json(${operand}::DOUBLE) WHEN isnan(${operand}) THEN to_json('NaN') WHEN ${operand} > 0 THEN to_json('Infinity') WHEN ${operand} < 0 THEN to_json('-Infinity') END`;
    case 'timestamp':
      return `to_json(regexp_replace(${operand}::VARCHAR, ${DATE_THEN_SPACE}, '\\1T'))`;
    case 'timestamp-utc':
      // The session time zone is UTC (withDuckDb), so the text always ends in "+00".
      return `to_json(regexp_replace(regexp_replace(${operand}::VARCHAR, ${DATE_THEN_SPACE}, '\\1T'), '\\+00$', 'Z'))`;
    case 'decimal':
    case 'date':
    case 'nested':
    case 'other':
      return `to_json(${operand}::VARCHAR)`;
  }
}

/** Reads back a value produced by jsonSafeSql (DuckDB hands JSON over as text). */
export function parseJsonSafe(json: unknown): DataValue {
  if (json === null) return null;
  if (typeof json !== 'string') throw new TypeError(`Expected JSON text, got ${typeof json}`);
  const value: unknown = JSON.parse(json);
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  throw new TypeError('JSON-safe SQL produced a composite value');
}

/** The select list that renders each column of `columns` JSON-safe, under its own name. */
export function jsonSafeSelectList(columns: readonly ColumnSchema[]): string {
  return columns
    .map((column) => `${jsonSafeSql(quotedIdentifier(column.name), column.type)} AS ${quotedIdentifier(column.name)}`)
    .join(', ');
}

/** The first `limit` rows of `fromSql` (a FROM item), JSON-safe. */
export async function readJsonSafeRows(
  connection: DuckDBConnection,
  fromSql: string,
  columns: readonly ColumnSchema[],
  limit: number,
): Promise<DataRow[]> {
  if (limit === 0 || columns.length === 0) return [];
  const reader = await connection.runAndReadAll(`SELECT ${jsonSafeSelectList(columns)} FROM ${fromSql} LIMIT ${limit}`);
  return reader
    .getRows()
    .map((cells) =>
      Object.fromEntries(columns.map((column, index) => [column.name, parseJsonSafe(cells[index] ?? null)])),
    );
}

/** Writes the rows of `fromSql` as JSON lines (one object per row, columns in order). */
export async function copyToJsonLines(
  connection: DuckDBConnection,
  fromSql: string,
  columns: readonly ColumnSchema[],
  path: string,
): Promise<void> {
  await connection.run(
    `COPY (SELECT ${jsonSafeSelectList(columns)} FROM ${fromSql}) TO ${fileLiteral(path)} (FORMAT json)`,
  );
}
