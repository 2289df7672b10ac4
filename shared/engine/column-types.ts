/**
 * Families of DuckDB logical type names, as DESCRIBE spells them ("BIGINT", "DECIMAL(18,3)",
 * "TIMESTAMP WITH TIME ZONE", "VARCHAR[]"). Value conversion and schema analysis treat each
 * family alike.
 */
export type TypeFamily =
  | 'boolean'
  | 'small-integer' // fits a JSON number whatever the value
  | 'big-integer' // may exceed ±(2^53 − 1)
  | 'unsigned-big-integer'
  | 'float'
  | 'decimal'
  | 'text'
  | 'date'
  | 'timestamp'
  | 'timestamp-utc'
  | 'nested' // LIST, ARRAY, STRUCT, MAP, UNION: no order, shown as text
  | 'other'; // TIME, INTERVAL, UUID, BLOB, ENUM…: ordered, shown as text

const FAMILY_BY_NAME: Readonly<Record<string, TypeFamily>> = {
  BOOLEAN: 'boolean',
  TINYINT: 'small-integer',
  SMALLINT: 'small-integer',
  INTEGER: 'small-integer',
  UTINYINT: 'small-integer',
  USMALLINT: 'small-integer',
  UINTEGER: 'small-integer',
  BIGINT: 'big-integer',
  HUGEINT: 'big-integer',
  UBIGINT: 'unsigned-big-integer',
  UHUGEINT: 'unsigned-big-integer',
  FLOAT: 'float',
  DOUBLE: 'float',
  VARCHAR: 'text',
  DATE: 'date',
  TIMESTAMP: 'timestamp',
  TIMESTAMP_S: 'timestamp',
  TIMESTAMP_MS: 'timestamp',
  TIMESTAMP_NS: 'timestamp',
  'TIMESTAMP WITH TIME ZONE': 'timestamp-utc',
};

export function typeFamily(typeName: string): TypeFamily {
  const named = FAMILY_BY_NAME[typeName];
  if (named) return named;
  if (typeName.startsWith('DECIMAL(')) return 'decimal';
  if (typeName.endsWith(']') || /^(STRUCT|MAP|UNION)\(/.test(typeName)) return 'nested';
  return 'other';
}

const NUMERIC: ReadonlySet<TypeFamily> = new Set([
  'small-integer',
  'big-integer',
  'unsigned-big-integer',
  'float',
  'decimal',
]);

export function isNumeric(typeName: string): boolean {
  return NUMERIC.has(typeFamily(typeName));
}

export function isInteger(typeName: string): boolean {
  const family = typeFamily(typeName);
  return family === 'small-integer' || family === 'big-integer' || family === 'unsigned-big-integer';
}
