import { describe, expect, it } from 'vitest';
import { MAX_ANALYSED_CODE_LENGTH } from '../../../shared/engine/recipe-sql';
import { MAX_TRINO_NESTING } from '../../../shared/engine/trino/trino-parse';
import { analyseTrinoSql } from '../../../shared/engine/trino/trino-sql';
import { refusal } from './recipe-sql-support';

/** The trino-sql analyzer's rules: the DuckDB analyzer's, with the same codes, over Trino's grammar. */

const analyse = (code: string | null | undefined, aliases: readonly string[] = ['orders']) =>
  Promise.resolve().then(() => analyseTrinoSql(code, aliases));

describe('what Trino code reads', () => {
  it('answers aliases, CTEs, functions, set operations and subqueries', async () => {
    const code = `WITH big AS (SELECT * FROM orders WHERE amount > 10),
      ranked AS (SELECT region, amount, row_number() OVER (PARTITION BY region ORDER BY amount DESC) AS rn FROM big)
      SELECT r.region, date_trunc('month', c.since) AS m, approx_percentile(r.amount, 0.5) AS p
      FROM ranked r JOIN customers c ON r.region = c.region
      WHERE r.rn <= 3 AND c.id IN (SELECT id FROM customers WHERE EXISTS (SELECT 1 FROM orders))
      GROUP BY r.region, date_trunc('month', c.since)
      UNION ALL SELECT region, DATE '2024-01-01', 0e0 FROM orders
      FETCH FIRST 10 ROWS ONLY`;
    expect(await analyse(code, ['orders', 'customers'])).toEqual({
      statement: 'SELECT',
      referenced_aliases: ['orders', 'customers'],
      ctes: ['big', 'ranked'],
      functions: ['approx_percentile', 'date_trunc', 'row_number'],
      set_operations: ['UNION ALL'],
      subqueries: 2,
    });
  });

  it('matches aliases ignoring case, quoted or not, and lets a CTE shadow nothing it should not', async () => {
    expect((await analyse('SELECT * FROM "ORDERS"')).referenced_aliases).toEqual(['orders']);
    expect((await analyse('TABLE Orders')).referenced_aliases).toEqual(['orders']);
    // A CTE named like an alias is not the alias: the alias itself is never read.
    expect((await refusal(analyse('WITH orders AS (SELECT 1 AS x) SELECT * FROM orders'))).code).toBe('40-50008');
  });

  it('reads Trino syntax DuckDB lacks, and refuses DuckDB syntax Trino lacks', async () => {
    await analyse("SELECT transform(ARRAY[1, 2], x -> x + 1) AS a, format_datetime(ts, 'yyyy') AS y FROM orders");
    await analyse('SELECT o.* FROM orders o CROSS JOIN UNNEST(ARRAY[1, 2]) WITH ORDINALITY AS t(v, i)');
    const duckdbOnly = await refusal(analyse('SELECT * EXCLUDE (id) FROM orders'));
    expect(duckdbOnly.code).toBe('40-50001');
    expect(duckdbOnly.extraDetails).toMatchObject({ line: 1, column: expect.any(Number) });
  });
});

describe('refusals, with the DuckDB analyzer’s codes', () => {
  it.each([
    ['no code', '  -- nothing\n', '40-50004'],
    ['two statements', 'SELECT * FROM orders; SELECT 1', '40-50002'],
    ['DDL', 'CREATE TABLE x AS SELECT * FROM orders', '40-50002'],
    ['DML', 'INSERT INTO orders SELECT * FROM orders', '40-50002'],
    ['UNLOAD', "UNLOAD (SELECT * FROM orders) TO 's3://bucket/x' WITH (format = 'PARQUET')", '40-50001'],
    ['EXPLAIN', 'EXPLAIN SELECT * FROM orders', '40-50002'],
    ['SHOW', 'SHOW TABLES', '40-50002'],
    ['USE', 'USE awsdatacatalog.other', '40-50002'],
    ['an inline function', 'WITH FUNCTION f(x bigint) RETURNS bigint RETURN x SELECT f(1) FROM orders', '40-50002'],
    ['a table function', "SELECT * FROM TABLE(system.query(query => 'SELECT 1')), orders", '40-50002'],
    ['a parameter', 'SELECT * FROM orders WHERE id = ?', '40-50001'],
    ['a backquoted identifier', 'SELECT `id` FROM orders', '40-50001'],
    ['a function of another catalogue', 'SELECT awsdatacatalog.udfs.f(id) FROM orders', '40-50005'],
    ['the session', 'SELECT current_user AS u FROM orders', '40-50005'],
    ['the clock', 'SELECT current_date AS d FROM orders', '40-50003'],
    ['a random number', 'SELECT rand() AS r FROM orders', '40-50003'],
    ['a window function without OVER', 'SELECT row_number() AS n FROM orders', '40-50003'],
    ['star EXCEPT', 'SELECT * EXCEPT (id) FROM orders', '40-50007'],
  ])('%s: %s', async (_name, code, answer) => {
    expect((await refusal(analyse(code))).code).toBe(answer);
  });

  it.each([
    ['another tenant’s Glue database', 'SELECT * FROM dps_acme.orders'],
    ['another catalogue', 'SELECT * FROM awsdatacatalog.dps_acme.orders'],
    ['information_schema', 'SELECT * FROM information_schema.tables'],
    ['a bucket path', 'SELECT * FROM "s3://dps-data/acme/tables/1/v1/"'],
    ['a table that is no alias', 'SELECT * FROM secrets'],
  ])('40-50006 for %s, even beside the alias', async (_name, code) => {
    const error = await refusal(analyse(`${code} CROSS JOIN orders`));
    expect(error.code).toBe('40-50006');
  });

  it('20-1054 when the code and the aliases name different tables; 40-50008 for an alias never read', async () => {
    expect((await refusal(analyse('SELECT * FROM clients', ['orders']))).code).toBe('20-1054');
    expect((await refusal(analyse('SELECT * FROM orders', ['orders', 'customers']))).code).toBe('40-50008');
  });

  it('bounds length and nesting: 10-1400 and 40-50001, never a crash', async () => {
    const long = await refusal(analyse(`SELECT 1 AS x FROM orders -- ${'x'.repeat(MAX_ANALYSED_CODE_LENGTH)}`));
    expect([long.code, Object.keys(long.extraDetails ?? {})]).toEqual(['10-1400', ['code']]);
    const deep = MAX_TRINO_NESTING + 1;
    for (const code of [
      `SELECT ${'('.repeat(20_000)}1${')'.repeat(20_000)} FROM orders`,
      `SELECT * FROM ${'(SELECT * FROM '.repeat(deep)}orders${')'.repeat(deep)}`,
    ])
      expect((await refusal(analyse(code))).code).toBe('40-50001');
    const chain = await analyse(
      `SELECT 1${' + 1'.repeat(5_000)} AS x FROM orders WHERE ${'id = 1 OR '.repeat(2_000)}true`,
    );
    expect(chain.referenced_aliases).toEqual(['orders']);
  });
});
