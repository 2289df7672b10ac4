import type { ColumnProfile, SchemaAlert, ValueKinds } from '../model/columns';
import { isInteger, typeFamily } from './column-types';

/**
 * Alerts of a FULL schema analysis, from the column profiles alone. A table without rows
 * raises none. Thresholds:
 *
 * - ALL_NULL: every value is NULL (value: null ratio, 1). No other alert for that column.
 * - MOSTLY_NULL: at least 50% of the values are NULL (value: null ratio).
 * - CONSTANT: at least 2 non-null values, all equal (value: distinct count, 1).
 * - UNIQUE: an integer, VARCHAR or UUID column without NULLs, at least 2 rows, every value
 *   distinct: a candidate key (value: distinct count). Only when distinct counts are exact
 *   (up to 1,000,000 rows); floats and timestamps are often all distinct without meaning it.
 * - HIGH_CARDINALITY: a VARCHAR column, not UNIQUE, with more than 50 distinct values making
 *   at least 90% of its non-null values (value: distinct / non-null).
 * - MIXED_TYPES: a VARCHAR column whose non-null values fall into at least two of the
 *   families number (integer, decimal), boolean, temporal (date, timestamp) and text, each
 *   holding at least 1% of them (value: share of values outside the largest family).
 */
export const ALERT_THRESHOLDS = {
  mostlyNullRatio: 0.5,
  constantMinValues: 2,
  uniqueMinRows: 2,
  highCardinalityMinDistinct: 50,
  highCardinalityMinRatio: 0.9,
  mixedTypesMinShare: 0.01,
} as const;

const KIND_FAMILIES: Readonly<Record<keyof ValueKinds, string>> = {
  integer: 'number',
  decimal: 'number',
  boolean: 'boolean',
  date: 'temporal',
  timestamp: 'temporal',
  text: 'text',
};

const percent = (ratio: number) => `${Math.round(ratio * 1000) / 10}%`;

const mayBeKey = (type: string) => isInteger(type) || type === 'VARCHAR' || type === 'UUID';

/** Non-null values per family, largest first. */
function familyShares(kinds: ValueKinds, nonNull: number): [string, number][] {
  const counts = new Map<string, number>();
  for (const [kind, count] of Object.entries(kinds) as [keyof ValueKinds, number][]) {
    counts.set(KIND_FAMILIES[kind], (counts.get(KIND_FAMILIES[kind]) ?? 0) + count);
  }
  return [...counts].map(([family, count]): [string, number] => [family, count / nonNull]).sort((a, b) => b[1] - a[1]);
}

export function columnAlerts(column: ColumnProfile, rowCount: number, distinctIsExact: boolean): SchemaAlert[] {
  if (rowCount === 0) return [];
  const alert = (type: SchemaAlert['type'], message: string, value: number): SchemaAlert => ({
    column: column.name,
    type,
    message,
    value,
  });
  if (column.null_count === rowCount) return [alert('ALL_NULL', `All ${rowCount} values are NULL`, 1)];

  const alerts: SchemaAlert[] = [];
  const nonNull = rowCount - column.null_count;
  const distinct = column.distinct_count ?? 0;
  const isText = typeFamily(column.type) === 'text';
  if (column.null_ratio >= ALERT_THRESHOLDS.mostlyNullRatio) {
    alerts.push(alert('MOSTLY_NULL', `${percent(column.null_ratio)} of the values are NULL`, column.null_ratio));
  }
  if (nonNull >= ALERT_THRESHOLDS.constantMinValues && distinct === 1) {
    alerts.push(alert('CONSTANT', `All ${nonNull} non-null values are the same`, distinct));
  }
  const unique =
    distinctIsExact &&
    mayBeKey(column.type) &&
    column.null_count === 0 &&
    rowCount >= ALERT_THRESHOLDS.uniqueMinRows &&
    distinct === rowCount;
  if (unique) alerts.push(alert('UNIQUE', `All ${rowCount} values are distinct: a candidate key`, distinct));
  const distinctRatio = distinct / nonNull;
  if (
    isText &&
    !unique &&
    distinct > ALERT_THRESHOLDS.highCardinalityMinDistinct &&
    distinctRatio >= ALERT_THRESHOLDS.highCardinalityMinRatio
  ) {
    alerts.push(
      alert(
        'HIGH_CARDINALITY',
        `${distinct} distinct values among ${nonNull} (${percent(distinctRatio)})`,
        distinctRatio,
      ),
    );
  }
  if (isText && column.value_kinds) {
    const shares = familyShares(column.value_kinds, nonNull);
    const significant = shares.filter(([, share]) => share >= ALERT_THRESHOLDS.mixedTypesMinShare);
    if (significant.length >= 2) {
      const described = significant.map(([family, share]) => `${percent(share)} ${family}`).join(', ');
      alerts.push(alert('MIXED_TYPES', `Values look like several types: ${described}`, 1 - (shares[0]?.[1] ?? 0)));
    }
  }
  return alerts;
}
