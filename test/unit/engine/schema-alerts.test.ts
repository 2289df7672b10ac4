import { describe, expect, it } from 'vitest';
import { ALERT_THRESHOLDS, columnAlerts } from '../../../shared/engine/schema-alerts';
import type { ColumnProfile, ValueKinds } from '../../../shared/model/columns';

/** The alert thresholds at their boundaries, on hand-made profiles. */
const NO_KINDS: ValueKinds = { integer: 0, decimal: 0, boolean: 0, date: 0, timestamp: 0, text: 0 };

function profile(
  type: string,
  rows: number,
  nulls: number,
  distinct: number,
  kinds?: Partial<ValueKinds>,
): ColumnProfile {
  return {
    name: 'c',
    type,
    null_count: nulls,
    null_ratio: rows === 0 ? 0 : nulls / rows,
    distinct_count: distinct,
    ...(kinds ? { value_kinds: { ...NO_KINDS, ...kinds } } : {}),
  };
}

const typesOf = (column: ColumnProfile, rows: number, exact = true) =>
  columnAlerts(column, rows, exact).map((alert) => alert.type);

describe('columnAlerts', () => {
  it('raises nothing for an empty table', () => {
    expect(typesOf(profile('VARCHAR', 0, 0, 0, {}), 0)).toEqual([]);
  });

  it('raises ALL_NULL alone for a column of NULLs', () => {
    expect(columnAlerts(profile('BIGINT', 10, 10, 0), 10, true)).toEqual([
      { column: 'c', type: 'ALL_NULL', message: 'All 10 values are NULL', value: 1 },
    ]);
  });

  it('raises MOSTLY_NULL from 50% NULLs', () => {
    expect(ALERT_THRESHOLDS.mostlyNullRatio).toBe(0.5);
    expect(typesOf(profile('DOUBLE', 100, 50, 50), 100)).toEqual(['MOSTLY_NULL']);
    expect(typesOf(profile('DOUBLE', 100, 49, 51), 100)).toEqual([]);
  });

  it('raises CONSTANT from two equal non-null values', () => {
    expect(typesOf(profile('DOUBLE', 3, 1, 1), 3)).toEqual(['CONSTANT']);
    expect(typesOf(profile('DOUBLE', 3, 2, 1), 3)).toEqual(['MOSTLY_NULL']);
  });

  it('raises UNIQUE for keys only: integer, text or UUID, no NULLs, exact counts', () => {
    expect(typesOf(profile('INTEGER', 5, 0, 5), 5)).toEqual(['UNIQUE']);
    expect(typesOf(profile('UUID', 5, 0, 5), 5)).toEqual(['UNIQUE']);
    expect(typesOf(profile('DOUBLE', 5, 0, 5), 5)).toEqual([]);
    expect(typesOf(profile('TIMESTAMP', 5, 0, 5), 5)).toEqual([]);
    expect(typesOf(profile('INTEGER', 5, 1, 4), 5)).toEqual([]);
    expect(typesOf(profile('INTEGER', 2_000_000, 0, 2_000_000), 2_000_000, false)).toEqual([]);
    expect(typesOf(profile('INTEGER', 1, 0, 1), 1)).toEqual([]);
  });

  it('raises HIGH_CARDINALITY for text with more than 50 distinct values making 90% of them', () => {
    expect(typesOf(profile('VARCHAR', 100, 0, 90, { text: 100 }), 100)).toEqual(['HIGH_CARDINALITY']);
    expect(typesOf(profile('VARCHAR', 100, 0, 89, { text: 100 }), 100)).toEqual([]);
    expect(typesOf(profile('VARCHAR', 55, 0, 50, { text: 55 }), 55)).toEqual([]);
    expect(typesOf(profile('VARCHAR', 55, 0, 51, { text: 55 }), 55)).toEqual(['HIGH_CARDINALITY']);
    expect(typesOf(profile('BIGINT', 100, 0, 95), 100)).toEqual([]);
  });

  it('raises UNIQUE instead of HIGH_CARDINALITY for distinct text without NULLs', () => {
    expect(typesOf(profile('VARCHAR', 100, 0, 100, { text: 100 }), 100)).toEqual(['UNIQUE']);
  });

  it('raises MIXED_TYPES when a second family holds at least 1% of the values', () => {
    expect(typesOf(profile('VARCHAR', 100, 0, 3, { integer: 99, text: 1 }), 100)).toEqual(['MIXED_TYPES']);
    expect(typesOf(profile('VARCHAR', 1000, 0, 3, { integer: 995, text: 5 }), 1000)).toEqual([]);
    expect(typesOf(profile('VARCHAR', 100, 0, 3, { integer: 60, decimal: 40 }), 100)).toEqual([]);
    expect(typesOf(profile('VARCHAR', 100, 0, 3, { date: 50, timestamp: 50 }), 100)).toEqual([]);
    const [alert] = columnAlerts(profile('VARCHAR', 100, 0, 3, { integer: 70, boolean: 20, date: 10 }), 100, true);
    expect(alert).toMatchObject({
      type: 'MIXED_TYPES',
      message: 'Values look like several types: 70% number, 20% boolean, 10% temporal',
    });
    expect(alert?.value).toBeCloseTo(0.3, 10);
  });
});
