import { describe, expect, it } from 'vitest';
import { declaredColumns, lineOf, type BigQueryField } from '../../../shared/connectors/analytics-db/types';
import { AppError } from '../../../shared/errors/app-error';

const scalar = (sql: string) => ({ kind: 'scalar', sql });
const typeOf = (field: Omit<BigQueryField, 'name'>) => declaredColumns([{ name: 'c', ...field }])[0]?.type;

function refusal(fields: readonly BigQueryField[]): AppError {
  try {
    declaredColumns(fields);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('BigQuery types as DuckDB types', () => {
  it('maps every scalar type, legacy and standard names alike', () => {
    expect(typeOf({ type: 'INTEGER' })).toEqual(scalar('BIGINT'));
    expect(typeOf({ type: 'INT64' })).toEqual(scalar('BIGINT'));
    expect(typeOf({ type: 'FLOAT' })).toEqual(scalar('DOUBLE'));
    expect(typeOf({ type: 'BOOL' })).toEqual(scalar('BOOLEAN'));
    expect(typeOf({ type: 'TIMESTAMP' })).toEqual(scalar('TIMESTAMPTZ'));
    expect(typeOf({ type: 'DATETIME' })).toEqual(scalar('TIMESTAMP'));
    expect(typeOf({ type: 'DATE' })).toEqual(scalar('DATE'));
    expect(typeOf({ type: 'TIME' })).toEqual(scalar('TIME'));
    expect(typeOf({ type: 'BYTES' })).toEqual({ kind: 'blob' });
    for (const text of ['STRING', 'JSON', 'GEOGRAPHY', 'INTERVAL', 'RANGE', 'SOMETHING_NEW'])
      expect(typeOf({ type: text })).toEqual(scalar('VARCHAR'));
  });

  it('keeps NUMERIC exact and BIGNUMERIC within 38 digits, else refuses with 30-1427 naming the column', () => {
    expect(typeOf({ type: 'NUMERIC' })).toEqual(scalar('DECIMAL(38,9)'));
    expect(typeOf({ type: 'NUMERIC', precision: '10' })).toEqual(scalar('DECIMAL(10,0)'));
    expect(typeOf({ type: 'NUMERIC', precision: '12', scale: '3' })).toEqual(scalar('DECIMAL(12,3)'));
    expect(typeOf({ type: 'BIGNUMERIC', precision: '38', scale: '38' })).toEqual(scalar('DECIMAL(38,38)'));
    expect(refusal([{ name: 'total', type: 'BIGNUMERIC' }])).toMatchObject({
      code: '30-1427',
      extraDetails: { column: 'total' },
    });
    const nested = refusal([
      { name: 'order', type: 'RECORD', fields: [{ name: 'amount', type: 'BIGNUMERIC', precision: '40', scale: '2' }] },
    ]);
    expect(nested.extraDetails).toEqual({
      column: 'order.amount',
      cause: 'column order.amount is BIGNUMERIC(40,2); DuckDB decimals hold at most 38 digits',
    });
  });

  it('makes REPEATED a list and RECORD a struct, at any depth', () => {
    const lines: BigQueryField = {
      name: 'lines',
      type: 'RECORD',
      mode: 'REPEATED',
      fields: [
        { name: 'sku', type: 'STRING', mode: 'REQUIRED' },
        { name: 'codes', type: 'BYTES', mode: 'REPEATED' },
      ],
    };
    expect(declaredColumns([lines])).toEqual([
      {
        name: 'lines',
        type: {
          kind: 'list',
          element: {
            kind: 'struct',
            fields: [
              { name: 'sku', type: scalar('VARCHAR') },
              { name: 'codes', type: { kind: 'list', element: { kind: 'blob' } } },
            ],
          },
        },
      },
    ]);
  });
});

describe('tabledata.list rows as JSON lines', () => {
  const fields: BigQueryField[] = [
    { name: 'id', type: 'INT64' },
    { name: 'at', type: 'TIMESTAMP' },
    { name: 'tags', type: 'STRING', mode: 'REPEATED' },
    { name: 'address', type: 'RECORD', fields: [{ name: 'city', type: 'STRING' }] },
  ];

  it('keeps BigQuery’s text of each value, NULLs, arrays and records', () => {
    const row = [
      { v: '9007199254740993' },
      { v: null },
      { v: [{ v: 'a' }, { v: 'b' }] },
      { v: { f: [{ v: 'Paris' }] } },
    ];
    expect(lineOf(row, fields)).toEqual({
      id: '9007199254740993',
      at: null,
      tags: ['a', 'b'],
      address: { city: 'Paris' },
    });
    expect(lineOf([{ v: null }, { v: null }, { v: [] }, { v: null }], fields)).toEqual({
      id: null,
      at: null,
      tags: [],
      address: null,
    });
  });

  it('writes TIMESTAMP microseconds as ISO 8601 in UTC, before 1970 and in year 1 too', () => {
    const at = (v: string) => lineOf([{ v: null }, { v }], fields).at;
    expect(at('1704103200123456')).toBe('2024-01-01T10:00:00.123456Z');
    expect(at('-1')).toBe('1969-12-31T23:59:59.999999Z');
    expect(at('-62135596800000000')).toBe('0001-01-01T00:00:00.000000Z');
    expect(at('253402300799999999')).toBe('9999-12-31T23:59:59.999999Z');
    // A server that ignores formatOptions.useInt64Timestamp sends float seconds.
    expect(at('1.7041032005E9')).toBe('2024-01-01T10:00:00.500000Z');
  });
});
