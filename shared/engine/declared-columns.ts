import { quotedIdentifier, quotedString } from '@duckdb/node-api';

/**
 * The schema a source system declares for its rows (BigQuery's table schema), so that its
 * JSON Lines are loaded with those types rather than types DuckDB guesses from a sample: a
 * NUMERIC stays an exact DECIMAL, an all-NULL column keeps its type, an INT64 beyond 2^53
 * keeps every digit (the lines carry such values as JSON strings, which DuckDB casts).
 *
 * JSON has no bytes, so a BLOB value arrives base64-encoded, at any depth, and is decoded
 * here; every other type is read as declared.
 */
export type DeclaredType =
  /** A DuckDB type name DuckDB casts JSON values to: BIGINT, DECIMAL(38,9), TIMESTAMPTZ... */
  | { readonly kind: 'scalar'; readonly sql: string }
  | { readonly kind: 'blob' }
  | { readonly kind: 'list'; readonly element: DeclaredType }
  | { readonly kind: 'struct'; readonly fields: readonly DeclaredColumn[] };

export interface DeclaredColumn {
  readonly name: string;
  readonly type: DeclaredType;
}

const hasBlob = (type: DeclaredType): boolean =>
  type.kind === 'blob' ||
  (type.kind === 'list' && hasBlob(type.element)) ||
  (type.kind === 'struct' && type.fields.some((field) => hasBlob(field.type)));

/** The type read_json reads a value as: the declared one, with BLOBs as their base64 text. */
function readType(type: DeclaredType): string {
  switch (type.kind) {
    case 'scalar':
      return type.sql;
    case 'blob':
      return 'VARCHAR';
    case 'list':
      return `${readType(type.element)}[]`;
    case 'struct':
      return `STRUCT(${type.fields.map((field) => `${quotedIdentifier(field.name)} ${readType(field.type)}`).join(', ')})`;
  }
}

/** SQL turning `operand`, read as readType(type), into the declared type. */
function loaded(operand: string, type: DeclaredType, depth: number): string {
  if (!hasBlob(type)) return operand;
  switch (type.kind) {
    case 'scalar':
      return operand;
    case 'blob':
      return `from_base64(${operand})`;
    case 'list': {
      const element = `element_${depth}`;
      return `list_transform(${operand}, ${element} -> ${loaded(element, type.element, depth + 1)})`;
    }
    case 'struct': {
      const fields = type.fields.map(
        (field) =>
          `${quotedIdentifier(field.name)} := ${loaded(`struct_extract(${operand}, ${quotedString(field.name)})`, field.type, depth + 1)}`,
      );
      return `CASE WHEN ${operand} IS NULL THEN NULL ELSE struct_pack(${fields.join(', ')}) END`;
    }
  }
}

/** read_json's `columns` option for the declared columns. */
export function jsonColumnsOption(columns: readonly DeclaredColumn[]): string {
  return `columns = {${columns.map((column) => `${quotedString(column.name)}: ${quotedString(readType(column.type))}`).join(', ')}}`;
}

/** The select list loading every declared column under its own name, in the declared order. */
export function declaredSelectList(columns: readonly DeclaredColumn[]): string {
  return columns
    .map((column) => `${loaded(quotedIdentifier(column.name), column.type, 0)} AS ${quotedIdentifier(column.name)}`)
    .join(', ');
}
