/**
 * What the tracer's corpus tests (trace.test.ts for duckdb-sql, trino-trace.test.ts for
 * trino-sql) share: their inputs, and the check of a traced recipe against lineage written by
 * hand as `alias.column:how`, sorted, so a case reads like the answer a person gives.
 */
import { expect } from 'vitest';
import type { RecipeLineage, TracedInput } from '../../../shared/engine/lineage/trace';

export interface ExpectedLineage {
  /** Output columns in order: [name, dependencies] (name null: named by the engine when it binds). */
  readonly columns: readonly (readonly [string | null, readonly string[]])[];
  readonly indirect?: readonly string[];
  /** Columns (by position, 1-based) the tracer marks unknown, with a part of the reason. */
  readonly unknownColumns?: Readonly<Record<number, string>>;
  /** A part of the reason the column list is not all known. */
  readonly unknown?: string;
}

export const ORDERS: TracedInput = { alias: 'orders', columns: ['id', 'customer_id', 'amount', 'status'] };
export const CUSTOMERS: TracedInput = { alias: 'customers', columns: ['id', 'name', 'country'] };

const shown = (dependencies: RecipeLineage['indirect']): string[] =>
  dependencies.map(({ input, column, how }) => `${input}.${column}:${how}`).sort();

/** Expects `lineage` to be `expected`, column by column, with what decides the rows and what is unknown. */
export function expectTraced(lineage: RecipeLineage, expected: ExpectedLineage): void {
  expect(lineage.columns.map((column) => [column.name, shown(column.dependencies)])).toEqual(
    expected.columns.map(([name, dependencies]) => [name, [...dependencies].sort()]),
  );
  expect(shown(lineage.indirect)).toEqual([...(expected.indirect ?? [])].sort());
  const unknownColumns = Object.fromEntries(
    lineage.columns.flatMap((column) => (column.unknown ? [[column.position, column.unknown]] : [])),
  );
  expect(Object.keys(unknownColumns).map(Number)).toEqual(Object.keys(expected.unknownColumns ?? {}).map(Number));
  for (const [position, part] of Object.entries(expected.unknownColumns ?? {}))
    expect(unknownColumns[Number(position)]).toContain(part);
  if (expected.unknown === undefined) expect(lineage.unknown).toBeUndefined();
  else expect(lineage.unknown).toContain(expected.unknown);
}
