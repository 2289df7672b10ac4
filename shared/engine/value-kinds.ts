import type { ValueKind } from '../model/columns';

/**
 * What a text value looks like, for the value_kinds of a VARCHAR column. The value is trimmed
 * first; the first matching kind wins, so the kinds are disjoint:
 *
 * - integer: optional sign and digits ("-12", "007");
 * - decimal: optional sign, digits with a decimal point and/or an exponent ("1.5", ".5", "1e3");
 * - boolean: "true" or "false", any case;
 * - date: YYYY-MM-DD that is a real date;
 * - timestamp: YYYY-MM-DD, "T" or space, HH:MM[:SS[.fraction]], optional Z or ±HH[:MM];
 * - text: everything else, the empty string included.
 */
const KIND_TESTS: readonly (readonly [Exclude<ValueKind, 'text'>, (value: string) => string])[] = [
  ['integer', (value) => String.raw`regexp_full_match(${value}, '[+-]?\d+')`],
  ['decimal', (value) => String.raw`regexp_full_match(${value}, '[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?')`],
  ['boolean', (value) => `lower(${value}) IN ('true', 'false')`],
  [
    'date',
    (value) =>
      String.raw`(regexp_full_match(${value}, '\d{4}-\d{2}-\d{2}') AND try_cast(${value} AS DATE) IS NOT NULL)`,
  ],
  [
    'timestamp',
    (value) =>
      String.raw`regexp_full_match(${value}, '\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?')`,
  ],
];

/** SQL naming the kind of the VARCHAR `operand`; NULL for NULL. */
export function valueKindSql(operand: string): string {
  const value = `trim(${operand})`;
  const branches = KIND_TESTS.map(([kind, test]) => `WHEN ${test(value)} THEN '${kind}'`).join(' ');
  return `CASE WHEN ${operand} IS NULL THEN NULL ${branches} ELSE 'text' END`;
}
