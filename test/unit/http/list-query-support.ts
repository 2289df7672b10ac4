/**
 * Rows, field table and helpers shared by the applyListQuery unit tests (list-query.test.ts and
 * list-query-refusals.test.ts).
 */
import { expect } from 'vitest';
import { AppError } from '../../../shared/errors/app-error';
import { applyListQuery, type ListFields, type ListQuery } from '../../../shared/http/list-query';

/** A listed record with one field of each filterable type. */
export interface Row {
  readonly id: number;
  readonly name?: string | null;
  readonly size?: number | null;
  readonly active?: boolean | null;
  readonly tags?: readonly string[];
  readonly created?: string;
}

/** The filterable and sortable fields of {@link Row}. */
export const FIELDS: ListFields<Row> = {
  name: { type: 'string', value: (row) => row.name },
  size: { type: 'integer', value: (row) => row.size },
  active: { type: 'boolean', value: (row) => row.active },
  tags: { type: 'string-list', value: (row) => row.tags },
  created: { type: 'datetime', value: (row) => row.created },
};

/** Five rows covering mixed case, quotes, negatives, time zones and absent values. */
export const ROWS: readonly Row[] = [
  { id: 1, name: 'Alpha', size: 10, active: true, tags: ['prod', 'EU'], created: '2024-01-01T00:00:00Z' },
  { id: 2, name: 'beta', size: 20, active: false, tags: ['dev'], created: '2024-02-01T00:00:00Z' },
  { id: 3, name: "O'Brien", size: -5, active: true, tags: [], created: '2024-03-01T12:30:00+02:00' },
  { id: 4, name: 'gamma ray', size: 20, active: false, tags: ['Prod'], created: '2023-12-31T23:59:59Z' },
  { id: 5, name: null, size: null, active: null, created: '2024-02-01T00:00:00.000Z' },
];

/** A list query returning everything unless overridden. */
export function query(overrides: Partial<ListQuery> = {}): ListQuery {
  return { offset: 0, limit: 1000, ...overrides };
}

/** The ids of the rows a filter keeps, in id order. */
export function ids(filter: string, rows: readonly Row[] = ROWS): number[] {
  return applyListQuery(rows, query({ filter }), FIELDS).items.map((row) => row.id);
}

/** The ids of the rows in the order a sort gives. */
export function sorted(sort: string, rows: readonly Row[] = ROWS): number[] {
  return applyListQuery(rows, query({ sort }), FIELDS).items.map((row) => row.id);
}

/** The 10-1400 error a query raises, with the text of its filter or sort detail. */
export function refusal(overrides: Partial<ListQuery>): { field: string; rule: string } {
  try {
    applyListQuery(ROWS, query(overrides), FIELDS);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.code).toBe('10-1400');
    expect(appError.status).toBe(400);
    const entries = Object.entries(appError.extraDetails ?? {});
    expect(entries).toHaveLength(1);
    const [field, rule] = entries[0]!;
    return { field, rule: String(rule) };
  }
  throw new Error(`expected ${JSON.stringify(overrides)} to be refused`);
}

/** The rule text of the 10-1400 a filter raises. */
export const filterRule = (filter: string): string => {
  const { field, rule } = refusal({ filter });
  expect(field).toBe('filter');
  return rule;
};

/** The rule text of the 10-1400 a sort raises. */
export const sortRule = (sort: string): string => {
  const { field, rule } = refusal({ sort });
  expect(field).toBe('sort');
  return rule;
};
