import type { DeclaredColumn, DeclaredType } from '../../engine/declared-columns';
import { AppError } from '../../errors/app-error';

/**
 * BigQuery's table schema as DuckDB types, and its rows (tabledata.list's `f`/`v` cells) as
 * JSON Lines the engine loads with those types (declared-columns.ts):
 *
 * | BigQuery | DuckDB | value in the lines |
 * |---|---|---|
 * | INT64 | BIGINT | the decimal text (exact beyond 2^53) |
 * | FLOAT64 | DOUBLE | the text; NaN, Infinity, -Infinity kept |
 * | NUMERIC | DECIMAL(38,9), or DECIMAL(P,S) as parameterized | the exact text |
 * | BIGNUMERIC(P,S), P ≤ 38 | DECIMAL(P,S) | the exact text |
 * | BIGNUMERIC otherwise (76 digits) | refused: 30-1427, DuckDB and our Parquet hold 38 | |
 * | BOOL | BOOLEAN | |
 * | TIMESTAMP | TIMESTAMP WITH TIME ZONE (UTC) | ISO 8601 from the int64 microseconds asked for |
 * | DATE, DATETIME, TIME | DATE, TIMESTAMP, TIME | as BigQuery writes them |
 * | BYTES | BLOB | base64, as BigQuery sends it |
 * | STRING, JSON, GEOGRAPHY (WKT), INTERVAL, RANGE, and any type not known here | VARCHAR | BigQuery's text |
 * | RECORD / STRUCT | STRUCT of its fields | an object |
 * | mode REPEATED | a LIST of the element type | an array (BigQuery arrays hold no NULL) |
 *
 * NULL stays NULL at any depth; REQUIRED columns are not marked NOT NULL (no engine column is).
 */

/** A column of tables.get's schema (TableFieldSchema), the members read here. */
export interface BigQueryField {
  readonly name?: string;
  readonly type?: string;
  readonly mode?: string;
  readonly fields?: readonly BigQueryField[];
  readonly precision?: string;
  readonly scale?: string;
}

/** DuckDB's widest DECIMAL, and so the widest a Parquet column of ours holds. */
const MAX_DECIMAL_PRECISION = 38;
const NUMERIC_DEFAULT = { precision: 38, scale: 9 };

const SCALARS: Readonly<Record<string, string>> = {
  INTEGER: 'BIGINT',
  INT64: 'BIGINT',
  FLOAT: 'DOUBLE',
  FLOAT64: 'DOUBLE',
  BOOLEAN: 'BOOLEAN',
  BOOL: 'BOOLEAN',
  TIMESTAMP: 'TIMESTAMPTZ',
  DATE: 'DATE',
  DATETIME: 'TIMESTAMP',
  TIME: 'TIME',
};

const number = (text: string | undefined): number | undefined =>
  text === undefined || !/^\d+$/.test(text) ? undefined : Number(text);

/** NUMERIC / BIGNUMERIC as DECIMAL(P,S), or 30-1427 when P is beyond DuckDB's 38 digits. */
function decimal(field: BigQueryField, path: string, big: boolean): DeclaredType {
  const precision = number(field.precision) ?? (big ? undefined : NUMERIC_DEFAULT.precision);
  const scale = number(field.scale) ?? (field.precision === undefined && !big ? NUMERIC_DEFAULT.scale : 0);
  if (precision === undefined || precision > MAX_DECIMAL_PRECISION) {
    const declared = `${field.type ?? ''}(${field.precision ?? '76.76'}${field.scale === undefined ? '' : `,${field.scale}`})`;
    throw new AppError('30-1427', {
      extraDetails: {
        column: path,
        cause: `column ${path} is ${declared}; DuckDB decimals hold at most ${MAX_DECIMAL_PRECISION} digits`,
      },
    });
  }
  return { kind: 'scalar', sql: `DECIMAL(${precision},${scale})` };
}

function elementType(field: BigQueryField, path: string): DeclaredType {
  const type = (field.type ?? '').toUpperCase();
  switch (type) {
    case 'RECORD':
    case 'STRUCT':
      return { kind: 'struct', fields: declaredColumns(field.fields ?? [], `${path}.`) };
    case 'BYTES':
      return { kind: 'blob' };
    case 'NUMERIC':
    case 'DECIMAL':
      return decimal(field, path, false);
    case 'BIGNUMERIC':
    case 'BIGDECIMAL':
      return decimal(field, path, true);
    default:
      return { kind: 'scalar', sql: SCALARS[type] ?? 'VARCHAR' };
  }
}

/** The declared columns of a BigQuery schema; `prefix` names nested fields in a refusal ("order.lines."). */
export function declaredColumns(fields: readonly BigQueryField[], prefix = ''): DeclaredColumn[] {
  return fields.map((field) => {
    const name = field.name ?? '';
    const element = elementType(field, `${prefix}${name}`);
    return { name, type: field.mode === 'REPEATED' ? { kind: 'list', element } : element };
  });
}

/** A JSON value of a line. */
export type LineValue = string | null | LineValue[] | { [name: string]: LineValue };

/** A cell of tabledata.list: `v` is text, null, an array of cells (REPEATED) or a row (RECORD). */
interface Cell {
  readonly v?: unknown;
}

const MICROS_PER_MILLI = 1000n;

/** TIMESTAMP as ISO 8601 in UTC: from int64 microseconds, or from float seconds if a server sends those. */
function timestampText(value: string): string {
  const micros = /^-?\d+$/.test(value) ? BigInt(value) : BigInt(Math.round(Number(value) * 1e6));
  const remainder = ((micros % MICROS_PER_MILLI) + MICROS_PER_MILLI) % MICROS_PER_MILLI;
  const millis = (micros - remainder) / MICROS_PER_MILLI;
  const iso = new Date(Number(millis)).toISOString();
  return `${iso.slice(0, -1)}${String(remainder).padStart(3, '0')}Z`;
}

function valueOf(raw: unknown, field: BigQueryField, repeated: boolean): LineValue {
  if (raw === null || raw === undefined) return null;
  if (repeated) return Array.isArray(raw) ? raw.map((cell: Cell) => valueOf(cell.v, field, false)) : null;
  const type = (field.type ?? '').toUpperCase();
  if (type === 'RECORD' || type === 'STRUCT') {
    const cells = (raw as { readonly f?: readonly Cell[] }).f ?? [];
    return lineOf(cells, field.fields ?? []);
  }
  const text = String(raw);
  return type === 'TIMESTAMP' ? timestampText(text) : text;
}

/** One row of tabledata.list (its `f` cells, in schema order) as the object of a JSON line. */
export function lineOf(cells: readonly Cell[], fields: readonly BigQueryField[]): { [name: string]: LineValue } {
  const line: { [name: string]: LineValue } = {};
  fields.forEach((field, index) => {
    line[field.name ?? ''] = valueOf(cells[index]?.v, field, field.mode === 'REPEATED');
  });
  return line;
}
