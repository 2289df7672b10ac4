/**
 * Tables of the BigQuery fake and their rows as tabledata.list sends them: every cell is
 * `{ v }`, where v is BigQuery's text of the value (numbers and booleans included), null, an
 * array of cells for a REPEATED field, or `{ f: [cells] }` for a RECORD.
 */

/** A column as tables.get describes it (TableFieldSchema). */
export interface FakeField {
  readonly name: string;
  readonly type: string;
  readonly mode?: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  readonly fields?: readonly FakeField[];
  readonly precision?: string;
  readonly scale?: string;
}

/**
 * A value of a fixture row: BigQuery's text for a scalar (a TIMESTAMP as int64 microseconds
 * since the epoch), null, an array for a REPEATED field, an object by field name for a RECORD.
 */
export type FakeValue = string | null | readonly FakeValue[] | { readonly [field: string]: FakeValue };

export interface FakeTable {
  /** TABLE (default) or VIEW, as tables.get reports it; only tables are listed. */
  readonly type?: string;
  readonly schema: readonly FakeField[];
  /** Rows by column name; a missing column is NULL. */
  readonly rows: readonly { readonly [column: string]: FakeValue }[];
  /** A view whose SQL fails when it is queried (a table it reads was dropped): the job's errorResult. */
  readonly queryError?: { readonly reason: string; readonly message: string };
  /** Who may read the rows (bigquery.tables.getData); the dataset's readers when absent. */
  readonly dataReaders?: ReadonlySet<string>;
}

interface Cell {
  readonly v: unknown;
}

/** A TIMESTAMP as BigQuery writes it without formatOptions.useInt64Timestamp: float seconds, "1.7041032001E9". */
function floatSeconds(micros: string): string {
  return (Number(micros) / 1e6).toExponential().replace('e+', 'E').replace('e-', 'E-');
}

function encodeValue(
  field: FakeField,
  value: FakeValue | undefined,
  int64Timestamps: boolean,
  inArray: boolean,
): unknown {
  if (value === null || value === undefined) return null;
  if (field.mode === 'REPEATED' && !inArray) {
    if (!Array.isArray(value)) throw new Error(`fixture: ${field.name} is REPEATED`);
    return (value as readonly FakeValue[]).map((element): Cell => ({
      v: encodeValue(field, element, int64Timestamps, true),
    }));
  }
  if (field.type === 'RECORD' || field.type === 'STRUCT')
    return encodeRow(field.fields ?? [], value as { readonly [field: string]: FakeValue }, int64Timestamps);
  if (typeof value !== 'string') throw new Error(`fixture: ${field.name} holds BigQuery's text`);
  return field.type === 'TIMESTAMP' && !int64Timestamps ? floatSeconds(value) : value;
}

/** One row in tabledata.list's shape. */
export function encodeRow(
  schema: readonly FakeField[],
  row: { readonly [column: string]: FakeValue },
  int64Timestamps: boolean,
): { f: Cell[] } {
  return { f: schema.map((field) => ({ v: encodeValue(field, row[field.name], int64Timestamps, false) })) };
}
