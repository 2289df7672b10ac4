import * as z from 'zod';
import { AppError } from '../../errors/app-error';

/**
 * A Delta table's schema (PROTOCOL.md "Schema Object": a struct of fields whose types are
 * primitive names or nested array, map and struct objects) and the engine's type of each
 * (docs/delta-sharing.md lists the mapping). Delta's `timestamp` is an instant (stored in
 * UTC, shown in the reader's zone), so it becomes TIMESTAMPTZ; `timestamp_ntz` is a local
 * date-time, TIMESTAMP.
 */

export type DeltaType =
  | string
  | { readonly type: 'array'; readonly elementType: DeltaType; readonly containsNull?: boolean }
  | { readonly type: 'map'; readonly keyType: DeltaType; readonly valueType: DeltaType }
  | { readonly type: 'struct'; readonly fields: readonly DeltaField[] };

export interface DeltaField {
  readonly name: string;
  readonly type: DeltaType;
  readonly nullable?: boolean;
}

const DeltaTypeSchema: z.ZodType<DeltaType> = z.lazy(() =>
  z.union([
    z.string(),
    z.object({ type: z.literal('array'), elementType: DeltaTypeSchema, containsNull: z.boolean().optional() }),
    z.object({ type: z.literal('map'), keyType: DeltaTypeSchema, valueType: DeltaTypeSchema }),
    z.object({ type: z.literal('struct'), fields: z.array(DeltaFieldSchema) }),
  ]),
);
const DeltaFieldSchema: z.ZodType<DeltaField> = z.lazy(() =>
  z.object({ name: z.string(), type: DeltaTypeSchema, nullable: z.boolean().optional() }),
);
const DeltaSchema = z.object({ type: z.literal('struct'), fields: z.array(DeltaFieldSchema) });

const PRIMITIVES: Readonly<Record<string, string>> = {
  string: 'VARCHAR',
  long: 'BIGINT',
  integer: 'INTEGER',
  short: 'SMALLINT',
  byte: 'TINYINT',
  float: 'FLOAT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  binary: 'BLOB',
  date: 'DATE',
  timestamp: 'TIMESTAMPTZ',
  timestamp_ntz: 'TIMESTAMP',
};
const DECIMAL = /^decimal\(\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\)$/;

/** The fields of a metaData action's schemaString; a schema that does not parse is 30-3010. */
export function parseDeltaSchema(schemaString: string): DeltaField[] {
  let json: unknown;
  try {
    json = JSON.parse(schemaString);
  } catch {
    json = undefined;
  }
  const parsed = DeltaSchema.safeParse(json);
  if (!parsed.success) throw new AppError('30-3010', { extraDetails: { reason: 'the table schema does not parse' } });
  return parsed.data.fields;
}

/**
 * A name quoted as DuckDB quotes identifiers (doubled inner quotes), written here rather than
 * taken from `@duckdb/node-api`: the tables view runs in API functions, whose bundles must not
 * carry the engine.
 */
function quotedIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The engine's (DuckDB's) type of a Delta type; a type this mapping does not know is 10-1000. */
export function engineTypeOf(type: DeltaType): string {
  if (typeof type === 'string') {
    const primitive = PRIMITIVES[type];
    if (primitive) return primitive;
    const decimal = DECIMAL.exec(type);
    if (decimal) return `DECIMAL(${decimal[1]}, ${decimal[2]})`;
    throw new AppError('10-1000', { extraDetails: { reason: `Delta type ${type} is not supported` } });
  }
  switch (type.type) {
    case 'array':
      return `${engineTypeOf(type.elementType)}[]`;
    case 'map':
      return `MAP(${engineTypeOf(type.keyType)}, ${engineTypeOf(type.valueType)})`;
    case 'struct':
      return `STRUCT(${type.fields.map((field) => `${quotedIdentifier(field.name)} ${engineTypeOf(field.type)}`).join(', ')})`;
  }
}
