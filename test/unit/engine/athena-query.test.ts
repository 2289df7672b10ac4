/**
 * What a trino-sql run sends Athena and how it reads Athena's answers: the CTAS wraps the
 * code's one statement (a trailing semicolon or comment cut by Trino's parser), each alias a
 * CTE over its per-run table; DuckDB types map to Glue's or are refused naming the column; a
 * query the cutoff cancelled is 20-1042 when the quota set the cutoff, 10-500 naming the stage's
 * otherwise; Trino's errors map to 20-1031, 10-1002 and 40-50001 with the run's names replaced.
 */
import { describe, expect, it } from 'vitest';
import { queryFailure } from '../../../shared/engine/athena/failures';
import { ctasStatement, glueColumns, hiveType, queryText } from '../../../shared/engine/athena/query';
import { parseTrinoSql } from '../../../shared/engine/trino/trino-parse';

const names = { database: 'dps_acme', tables: new Map([['run_x_n1_in0', 'orders']]) };

describe('the CTAS of a node', () => {
  it('wraps the code’s one statement, without what follows it', () => {
    expect(queryText('SELECT 1 AS a;  -- done\n')).toBe('SELECT 1 AS a');
    expect(queryText('/* lead */ WITH x AS (SELECT 1 AS a) SELECT a FROM x ; ')).toBe(
      'WITH x AS (SELECT 1 AS a) SELECT a FROM x',
    );
    const statement = ctasStatement({
      database: 'dps_acme',
      table: 'run_x_n1_out',
      location: "s3://bucket/acme/o'k/",
      inputs: [{ alias: 'orders', table: 'run_x_n1_in0' }],
      code: 'SELECT id FROM orders; -- trailing',
    });
    expect(statement).toBe(
      [
        'CREATE TABLE "dps_acme"."run_x_n1_out"',
        "WITH (format = 'PARQUET', external_location = 's3://bucket/acme/o''k/')",
        'AS WITH "orders" AS (SELECT * FROM "dps_acme"."run_x_n1_in0")',
        'SELECT * FROM (\nSELECT id FROM orders\n)',
      ].join('\n'),
    );
    // What is sent is Trino: its own grammar reads it.
    expect(parseTrinoSql(statement).error).toBe(false);
  });

  it('maps DuckDB types to Glue’s, and refuses one Athena cannot read, naming the column', () => {
    expect(['BIGINT', 'VARCHAR', 'DECIMAL(18,3)', 'DATE', 'DOUBLE[]', 'TIMESTAMP'].map(hiveType)).toEqual([
      'bigint',
      'string',
      'decimal(18,3)',
      'date',
      'array<double>',
      'timestamp',
    ]);
    expect(() => glueColumns([{ name: 'big', type: 'HUGEINT', nullable: true }])).toThrow(
      expect.objectContaining({
        code: '20-1010',
        extraDetails: { language: expect.stringContaining('big of type HUGEINT') },
      }),
    );
  });
});

describe('a query that did not succeed', () => {
  const cancelled = { State: 'CANCELLED' as const, StateChangeReason: 'Bytes scanned limit was exceeded' };

  it('at the cutoff: 20-1042 when the quota set it, 10-500 naming the stage’s limit otherwise', () => {
    expect(queryFailure(cancelled, { bytes: 10_000_000, by: 'quota' }, names)).toMatchObject({
      code: '20-1042',
      extraDetails: { cause: 'bytes scanned limit' },
    });
    expect(queryFailure(cancelled, { bytes: 1e12, by: 'stage' }, names)).toMatchObject({
      code: '10-500',
      message: expect.stringContaining('1000000000000 bytes'),
    });
  });

  it('names the user’s column and aliases, never the run’s tables or paths', () => {
    const failed = (message: string, category = 2) => ({
      State: 'FAILED' as const,
      AthenaError: { ErrorCategory: category, ErrorMessage: message },
    });
    expect(
      queryFailure(
        failed("COLUMN_NOT_FOUND: line 1:8: Column 'colour' cannot be resolved"),
        { bytes: 1, by: 'stage' },
        names,
      ),
    ).toMatchObject({ code: '20-1031', message: 'Invalid column name: colour' });
    const typeError = queryFailure(
      failed('TYPE_MISMATCH: line 2:3: Cannot apply operator varchar + integer in dps_acme.run_x_n1_in0 at s3://b/k/'),
      { bytes: 1, by: 'stage' },
      names,
    );
    expect(typeError).toMatchObject({ code: '40-50001' });
    expect(JSON.stringify(typeError.extraDetails)).not.toMatch(/run_x|dps_acme|s3:/);
    expect(JSON.stringify(typeError.extraDetails)).toContain('orders');
    expect(queryFailure(failed('INVALID_CAST_ARGUMENT: Cannot cast x'), { bytes: 1, by: 'stage' }, names).code).toBe(
      '10-1002',
    );
    expect(queryFailure(failed('Internal error', 1), { bytes: 1, by: 'stage' }, names)).toMatchObject({
      code: '10-500',
    });
  });
});
