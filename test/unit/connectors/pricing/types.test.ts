import { describe, expect, it } from 'vitest';
import { pricingColumnsOf, pricingValueOf } from '../../../../shared/connectors/pricing/types';
import { AppError } from '../../../../shared/errors/app-error';

function mappingFailure(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('30-4009');
    return error as AppError;
  }
  throw new Error('expected 30-4009');
}

describe('pricingColumnsOf', () => {
  it('gives unnamed columns the default of their engine type', () => {
    const columns = [
      { name: 'label', type: 'VARCHAR' },
      { name: 'count', type: 'INTEGER' },
      { name: 'big', type: 'BIGINT' },
      { name: 'ratio', type: 'DOUBLE' },
      { name: 'amount', type: 'DECIMAL(18,3)' },
      { name: 'active', type: 'BOOLEAN' },
      { name: 'day', type: 'DATE' },
      { name: 'at', type: 'TIMESTAMP' },
      { name: 'at_utc', type: 'TIMESTAMP WITH TIME ZONE' },
    ];
    expect(pricingColumnsOf(columns, null).map((column) => column.type)).toEqual([
      'STRING',
      'INTEGER',
      'INTEGER',
      'DECIMAL',
      'DECIMAL',
      'BOOLEAN',
      'DATE',
      'DATETIME',
      'DATETIME',
    ]);
  });

  it('takes the mapped type of a named column, ignoring names the source lacks', () => {
    const columns = [
      { name: 'id', type: 'BIGINT' },
      { name: 'day', type: 'DATE' },
      { name: 'code', type: 'UUID' },
    ];
    const mapping = { id: 'DECIMAL', day: 'DATETIME', code: 'STRING', elsewhere: 'BOOLEAN' };
    expect(pricingColumnsOf(columns, mapping)).toEqual([
      { name: 'id', type: 'DECIMAL' },
      { name: 'day', type: 'DATETIME' },
      { name: 'code', type: 'STRING' },
    ]);
  });

  it('30-4009 naming the column for a type name the pricing system lacks', () => {
    const error = mappingFailure(() => pricingColumnsOf([{ name: 'price', type: 'DOUBLE' }], { price: 'MONEY' }));
    expect(error.extraDetails).toMatchObject({ column: 'price' });
    expect(String(error.extraDetails?.reason)).toContain('MONEY is not a pricing type');
  });

  it('30-4009 for a mapping the engine type does not allow, and for a column with no default', () => {
    expect(
      mappingFailure(() => pricingColumnsOf([{ name: 'label', type: 'VARCHAR' }], { label: 'INTEGER' })).extraDetails,
    ).toMatchObject({ column: 'label' });
    expect(
      mappingFailure(() => pricingColumnsOf([{ name: 'tags', type: 'VARCHAR[]' }], {})).extraDetails,
    ).toMatchObject({ column: 'tags' });
    expect(
      mappingFailure(() => pricingColumnsOf([{ name: 'point', type: 'STRUCT(x INTEGER)' }], { point: 'STRING' }))
        .extraDetails,
    ).toMatchObject({ column: 'point' });
    expect(
      mappingFailure(() => pricingColumnsOf([{ name: 'raw', type: 'BLOB' }], undefined)).extraDetails,
    ).toMatchObject({ column: 'raw' });
  });
});

describe('pricingValueOf', () => {
  it('keeps null, and writes each type as docs/pricing.md says', () => {
    expect(pricingValueOf(null, 'INTEGER')).toBeNull();
    expect(pricingValueOf(undefined, 'STRING')).toBeNull();
    expect(pricingValueOf('text', 'STRING')).toBe('text');
    expect(pricingValueOf(12, 'STRING')).toBe('12');
    expect(pricingValueOf(true, 'STRING')).toBe('true');
    expect(pricingValueOf(42, 'INTEGER')).toBe(42);
    expect(pricingValueOf(42n, 'INTEGER')).toBe(42);
    expect(pricingValueOf('9007199254740993', 'INTEGER')).toBe('9007199254740993');
    expect(pricingValueOf(-9007199254740993n, 'INTEGER')).toBe('-9007199254740993');
    expect(pricingValueOf(1.25, 'DECIMAL')).toBe(1.25);
    expect(pricingValueOf('1.500', 'DECIMAL')).toBe('1.500');
    expect(pricingValueOf(7n, 'DECIMAL')).toBe('7');
    expect(pricingValueOf(false, 'BOOLEAN')).toBe(false);
    expect(pricingValueOf('2024-02-29', 'DATE')).toBe('2024-02-29');
    expect(pricingValueOf(new Date('2024-02-29T23:00:00Z'), 'DATE')).toBe('2024-02-29');
    expect(pricingValueOf('2024-02-29', 'DATETIME')).toBe('2024-02-29T00:00:00');
    expect(pricingValueOf('2024-02-29 10:11:12.5', 'DATETIME')).toBe('2024-02-29T10:11:12.5');
    expect(pricingValueOf('2024-02-29T10:11:12+00', 'DATETIME')).toBe('2024-02-29T10:11:12Z');
    expect(pricingValueOf(new Date('2024-02-29T10:11:12Z'), 'DATETIME')).toBe('2024-02-29T10:11:12.000Z');
  });

  it('an engine value object goes by its own text', () => {
    const decimal = { toString: () => '12.340' };
    expect(pricingValueOf(decimal, 'DECIMAL')).toBe('12.340');
    expect(pricingValueOf({ toString: () => '2020-01-02' }, 'DATE')).toBe('2020-01-02');
  });

  it('30-4009 for a value that is not of its type', () => {
    mappingFailure(() => pricingValueOf(1.5, 'INTEGER'));
    mappingFailure(() => pricingValueOf('12a', 'INTEGER'));
    mappingFailure(() => pricingValueOf(Number.NaN, 'DECIMAL'));
    mappingFailure(() => pricingValueOf('Infinity', 'DECIMAL'));
    mappingFailure(() => pricingValueOf('yes', 'BOOLEAN'));
    mappingFailure(() => pricingValueOf('29/02/2024', 'DATE'));
    mappingFailure(() => pricingValueOf('2024-02-29T10:11:12+02', 'DATETIME'));
  });
});
