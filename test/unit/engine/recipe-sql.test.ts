import { describe, expect, it } from 'vitest';
import { analyseRecipeSql, MAX_ANALYSED_CODE_LENGTH } from '../../../shared/engine/recipe-sql';
import { refusal } from './recipe-sql-support';

/** The analyzer's rules, one code at a time (docs/decisions.md, "Recipe SQL analyzer"). */

const analyse = (code: string | null | undefined, aliases: readonly string[] = ['orders']) =>
  analyseRecipeSql(code, aliases);

describe('40-50004: no code', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['empty', ''],
    ['blank', ' \n\t '],
    ['only comments', '-- nothing yet\n/* later */'],
    ['only semicolons', ' ; ; '],
  ])('%s', async (_name, code) => {
    expect((await refusal(analyse(code))).code).toBe('40-50004');
  });
});

describe('bounds', () => {
  it('refuses code over the analyzer bound with 10-1400 naming code', async () => {
    const code = `SELECT 1 AS x FROM orders -- ${'x'.repeat(MAX_ANALYSED_CODE_LENGTH)}`;
    const error = await refusal(analyse(code));
    expect([error.code, Object.keys(error.extraDetails ?? {})]).toEqual(['10-1400', ['code']]);
  });

  it('answers 40-50001, not a crash, for nesting beyond what DuckDB parses', async () => {
    for (const code of [
      `SELECT ${'('.repeat(20_000)}1${')'.repeat(20_000)} FROM orders`,
      `SELECT 1${'+1'.repeat(5_000)} FROM orders`,
      `SELECT * FROM ${'(SELECT * FROM '.repeat(3_000)}orders${')'.repeat(3_000)}`,
    ]) {
      expect((await refusal(analyse(code))).code).toBe('40-50001');
    }
  });

  it('walks the deepest trees DuckDB does parse without recursion', async () => {
    const analysis = await analyse(`SELECT ${'('.repeat(5_000)}x${')'.repeat(5_000)} FROM orders`);
    expect(analysis.referenced_aliases).toEqual(['orders']);
  });
});

describe('40-50001: invalid syntax', () => {
  it("gives DuckDB's message and the position as offset, line and column", async () => {
    const error = await refusal(analyse("SELECT 'é' AS x\nFROM orders WHER total > 1"));
    expect(error.code).toBe('40-50001');
    expect(error.extraDetails).toEqual({ cause: 'syntax error at or near "total"', position: 33, line: 2, column: 18 });
  });

  it('counts the position in characters, as DuckDB does, not UTF-16 units', async () => {
    const error = await refusal(analyse("SELECT '😀😀' FROM orders WHER x"));
    expect(error.extraDetails).toMatchObject({ position: 29, line: 1, column: 30 });
  });

  it('refuses a NUL character, where DuckDB would stop reading, naming its place', async () => {
    const error = await refusal(analyse("SELECT 'é' FROM orders\u0000; DROP TABLE orders"));
    expect([error.code, error.extraDetails]).toEqual([
      '40-50001',
      { cause: expect.stringContaining('NUL'), position: 22, line: 1, column: 23 },
    ]);
  });

  it('refuses parameters, which nothing binds when a recipe runs', async () => {
    for (const code of [
      'SELECT * FROM orders WHERE id = $1',
      'SELECT * FROM orders WHERE id = ?',
      'SELECT * FROM orders WHERE id = $id',
    ]) {
      const error = await refusal(analyse(code));
      expect([error.code, error.extraDetails?.cause]).toEqual(['40-50001', expect.stringContaining('parameters')]);
    }
  });
});

describe('40-50002: not exactly one query', () => {
  it.each([
    ['DELETE FROM orders', 'DELETE'],
    ['INSERT INTO orders SELECT * FROM orders', 'INSERT'],
    ['UPDATE orders SET total = 0', 'UPDATE'],
    ['CREATE TABLE t AS SELECT * FROM orders', 'CREATE'],
    ['DROP TABLE orders', 'DROP'],
    ["COPY orders TO '/tmp/out.csv'", 'COPY'],
    ["ATTACH '/tmp/other.db'", 'ATTACH'],
    ['INSTALL httpfs', 'INSTALL'],
    ['LOAD httpfs', 'LOAD'],
    ['SET threads = 64', 'SET'],
    ['PRAGMA version', 'PRAGMA'],
    ["EXPORT DATABASE '/tmp/dump'", 'EXPORT'],
    ["IMPORT DATABASE '/tmp/dump'", 'IMPORT'],
    ['EXPLAIN SELECT * FROM orders', 'EXPLAIN'],
    ['CALL pragma_version()', 'CALL'],
    ['PIVOT orders ON status USING sum(total)', 'PIVOT'],
    ['/* a comment */ -- and another\n  DELETE FROM orders', 'DELETE'],
  ])('%s', async (code, keyword) => {
    const error = await refusal(analyse(code));
    expect([error.code, error.extraDetails?.cause]).toEqual([
      '40-50002',
      expect.stringContaining(`a ${keyword} statement`),
    ]);
  });

  it('refuses two queries', async () => {
    const error = await refusal(analyse('SELECT * FROM orders; SELECT * FROM orders'));
    expect([error.code, error.extraDetails?.cause]).toEqual(['40-50002', expect.stringContaining('2 statements')]);
  });

  it('refuses a query followed by a statement', async () => {
    expect((await refusal(analyse('SELECT * FROM orders; DROP TABLE orders'))).code).toBe('40-50002');
  });

  it.each(['DESCRIBE orders', 'SUMMARIZE orders', 'SHOW TABLES', 'SELECT * FROM (DESCRIBE orders)'])(
    'refuses %s',
    async (code) => {
      const error = await refusal(analyse(code));
      expect([error.code, error.extraDetails?.cause]).toEqual([
        '40-50002',
        expect.stringContaining('DESCRIBE, SHOW or SUMMARIZE'),
      ]);
    },
  );

  it('accepts one query with a trailing semicolon', async () => {
    expect((await analyse('SELECT * FROM orders;')).statement).toBe('SELECT');
  });
});

describe('40-50007: SELECT * EXCEPT (columns)', () => {
  it.each([
    'SELECT * EXCEPT (secret) FROM orders',
    'SELECT o.* except(secret, other) FROM orders o',
    'WITH x AS (SELECT * EXCEPT (a) FROM orders) SELECT * FROM x',
  ])('%s', async (code) => {
    const error = await refusal(analyse(code));
    expect([error.code, error.extraDetails?.cause]).toEqual(['40-50007', expect.stringContaining('EXCLUDE')]);
  });

  it('leaves other syntax errors near EXCEPT as 40-50001', async () => {
    expect((await refusal(analyse('SELECT * EXCEPT (secret) FROM orders WHER x'))).code).toBe('40-50001');
  });

  it('accepts EXCLUDE and the EXCEPT set operation', async () => {
    expect((await analyse('SELECT * EXCLUDE (secret) FROM orders')).referenced_aliases).toEqual(['orders']);
    const analysis = await analyse('SELECT id FROM orders EXCEPT ALL SELECT id FROM refunds', ['orders', 'refunds']);
    expect(analysis.set_operations).toEqual(['EXCEPT ALL']);
  });
});

describe('40-50005: functions outside the allow-list', () => {
  it.each([
    ["SELECT * FROM read_csv('/etc/passwd')", 'read_csv'],
    ["SELECT * FROM read_parquet('s3://bucket/x.parquet')", 'read_parquet'],
    ["SELECT * FROM glob('/*')", 'glob'],
    ["SELECT * FROM read_text('/etc/hostname')", 'read_text'],
    ["SELECT * FROM read_json_auto('http://169.254.169.254/latest/meta-data')", 'read_json_auto'],
    ['SELECT * FROM duckdb_settings()', 'duckdb_settings'],
    ["SELECT * FROM query('SELECT 1')", 'query'],
    ["SELECT * FROM query_table('orders')", 'query_table'],
    ["SELECT getenv('HOME') FROM orders", 'getenv'],
    ["SELECT current_setting('threads') FROM orders", 'current_setting'],
    ["SELECT getvariable('x') FROM orders", 'getvariable'],
    ['SELECT version() FROM orders', 'version'],
    ['SELECT pg_sleep(10) FROM orders', 'pg_sleep'],
    ["SELECT json_serialize_sql('SELECT 1') FROM orders", 'json_serialize_sql'],
    ["SELECT nextval('seq') FROM orders", 'nextval'],
    ['SELECT no_such_function(x) FROM orders', 'no_such_function'],
    ["SELECT system.main.read_text('/etc/passwd') FROM orders", 'read_text'],
  ])('%s', async (code, name) => {
    const error = await refusal(analyse(code));
    expect([error.code, error.extraDetails]).toEqual(['40-50005', { functions: [name] }]);
  });

  it('finds them anywhere: in a CTE, a subquery, a lambda, a window, a join condition', async () => {
    const code = `WITH c AS (SELECT * FROM orders WHERE id IN (SELECT id FROM read_csv('/etc/passwd')))
      SELECT list_transform([1], x -> getenv('A')), sum(1) OVER (ORDER BY current_setting('x')) FROM c JOIN orders o ON o.id = version()`;
    expect((await refusal(analyse(code))).extraDetails).toEqual({
      functions: ['current_setting', 'getenv', 'read_csv', 'version'],
    });
  });

  it('allows the generators a FROM clause may call', async () => {
    const code =
      'SELECT * FROM orders, unnest(orders.tags) AS t(tag), range(3) r(i), generate_series(1, 2) g(j), json_each(\'{"a":1}\') j';
    expect((await analyse(code)).functions).toEqual(['generate_series', 'json_each', 'range', 'unnest']);
  });

  it('ignores what the parser or a method call writes before a function name', async () => {
    const analysis = await analyse(
      "SELECT ts AT TIME ZONE 'UTC', main.abs(total), o.name.upper(), EXTRACT(year FROM ts) FROM orders o",
    );
    expect(analysis.functions).toEqual(['abs', 'date_part', 'timezone', 'upper']);
  });
});

describe('40-50003: functions that exist but cannot be used', () => {
  it.each([
    ['SELECT random() AS r FROM orders', ['random']],
    ['SELECT *, uuid() AS id FROM orders', ['uuid']],
    ['SELECT now() FROM orders', ['now']],
    ['SELECT * FROM orders WHERE day > today()', ['today']],
    ['SELECT * FROM orders WHERE day > current_date', ['current_date']],
    ['SELECT CURRENT_TIMESTAMP AS at, localtime FROM orders', ['current_timestamp', 'localtime']],
    ['SELECT reservoir_quantile(total, 0.5) FROM orders', ['reservoir_quantile']],
  ])('non-deterministic: %s', async (code, functions) => {
    const error = await refusal(analyse(code));
    expect([error.code, error.extraDetails?.functions, error.extraDetails?.cause]).toEqual([
      '40-50003',
      functions,
      expect.stringContaining('same rows'),
    ]);
  });

  it('a window function without OVER', async () => {
    const error = await refusal(analyse('SELECT row_number() AS n, lag(total) FROM orders'));
    expect([error.code, error.extraDetails?.functions, error.extraDetails?.cause]).toEqual([
      '40-50003',
      ['lag', 'row_number'],
      expect.stringContaining('OVER'),
    ]);
  });

  it('accepts window functions with OVER and a qualified column named like a clock keyword', async () => {
    const analysis = await analyse(
      'SELECT o.current_date, row_number() OVER (ORDER BY id), lag(total) OVER w FROM orders o WINDOW w AS (ORDER BY id)',
    );
    expect(analysis.functions).toEqual(['lag', 'row_number']);
  });

  it('answers 40-50005 before 40-50003', async () => {
    expect((await refusal(analyse("SELECT random(), getenv('x') FROM orders"))).code).toBe('40-50005');
  });
});

describe('tables: 40-50006, 40-50008, 20-1054', () => {
  it('40-50006 names the tables that are neither an alias nor a CTE', async () => {
    const error = await refusal(
      analyse('SELECT * FROM orders JOIN customers USING (id) JOIN "/etc/passwd" ON true', ['orders']),
    );
    expect([error.code, error.extraDetails]).toEqual([
      '40-50006',
      { tables: ['customers', '/etc/passwd'], aliases: ['orders'] },
    ]);
  });

  it('40-50006 for a qualified name or a file replacement scan, even when it ends in an alias', async () => {
    expect((await refusal(analyse('SELECT * FROM orders, main.orders o2'))).extraDetails).toMatchObject({
      tables: ['main.orders'],
    });
    expect((await refusal(analyse("SELECT * FROM orders, 'data.csv'"))).extraDetails).toMatchObject({
      tables: ['data.csv'],
    });
  });

  it('40-50008 names the aliases never read', async () => {
    const error = await refusal(analyse('SELECT * FROM orders', ['orders', 'customers', 'CurrentTable']));
    expect([error.code, error.message, error.extraDetails]).toEqual([
      '40-50008',
      'Alias(es) customers, CurrentTable defined but not referenced in the query',
      { aliases: ['customers', 'CurrentTable'] },
    ]);
  });

  it('20-1054 when both happen: the code and the aliases name different tables', async () => {
    const error = await refusal(analyse('SELECT * FROM orders o JOIN clients c USING (id)', ['orders', 'customers']));
    expect([error.code, error.message, error.extraDetails]).toEqual([
      '20-1054',
      'Aliases orders, customers do not match table references in SQL code orders, clients',
      { unknown_tables: ['clients'], unreferenced_aliases: ['customers'] },
    ]);
  });

  it('matches aliases ignoring case and answers them as declared', async () => {
    const analysis = await analyse('SELECT * FROM ORDERS JOIN "Customers" USING (id)', ['Customers', 'orders']);
    expect(analysis.referenced_aliases).toEqual(['Customers', 'orders']);
  });

  it('CurrentTable is an alias like any other', async () => {
    expect((await analyse('SELECT * FROM CurrentTable WHERE total > 0', ['CurrentTable'])).referenced_aliases).toEqual([
      'CurrentTable',
    ]);
  });

  it('follows CTE scopes as DuckDB binds them', async () => {
    // A CTE's body reads the table it shadows; a later CTE and the query read the CTE.
    const shadowed = await analyse('WITH orders AS (SELECT * FROM orders WHERE total > 0) SELECT * FROM orders');
    expect([shadowed.referenced_aliases, shadowed.ctes]).toEqual([['orders'], ['orders']]);
    // A CTE defined in a subquery is not visible outside it.
    const error = await refusal(analyse('SELECT * FROM (WITH big AS (SELECT * FROM orders) SELECT * FROM big) s, big'));
    expect([error.code, error.extraDetails?.tables]).toEqual(['40-50006', ['big']]);
    // A CTE cannot read one defined after it.
    expect(
      (await refusal(analyse('WITH a AS (SELECT * FROM b), b AS (SELECT * FROM orders) SELECT * FROM a'))).extraDetails
        ?.tables,
    ).toEqual(['b']);
    // Only the query node holding the CTE hides a table of that name: an alias stays an alias
    // when the CTE only shadows it elsewhere.
    const shadowOnly = await refusal(analyse('WITH orders AS (SELECT 1 AS x) SELECT * FROM orders'));
    expect(shadowOnly.code).toBe('40-50008');
  });

  it.each([
    'SELECT * FROM a WHERE x IN (TABLE b)',
    'SELECT (FROM b LIMIT 1) FROM a',
    'SELECT list_transform([1], v -> (SELECT max(x) FROM b)) FROM a',
    'SELECT * FROM a ORDER BY (SELECT max(x) FROM b)',
    'SELECT * FROM a LIMIT (SELECT count(*) FROM b)',
    'SELECT * FROM a QUALIFY row_number() OVER () < (SELECT count(*) FROM b)',
    'SELECT count(*) FILTER (WHERE x IN (SELECT x FROM b)) FROM a',
    'SELECT sum(x) OVER (ORDER BY x ROWS BETWEEN (SELECT 1 FROM b) PRECEDING AND CURRENT ROW) FROM a',
    'SELECT sum(x) OVER w FROM a WINDOW w AS (PARTITION BY (SELECT 1 FROM b))',
    'SELECT * FROM a, (VALUES ((SELECT 1 FROM b)))',
    'SELECT * FROM a, unnest((SELECT list(x) FROM b))',
    'SELECT CASE WHEN EXISTS (FROM b) THEN 1 END FROM a',
    'SELECT * FROM a GROUP BY (SELECT 1 FROM b) HAVING (SELECT true FROM b)',
    'SELECT COLUMNS(c -> c IN (SELECT name FROM b)) FROM a',
    'SELECT * FROM a UNION BY NAME FROM b',
    "SELECT * FROM a PIVOT (sum(y) FOR x IN ('p', 'q')) p JOIN b USING (k)",
  ])('finds a table read in any clause: %s', async (code) => {
    expect((await analyse(code, ['a', 'b'])).referenced_aliases).toEqual(['a', 'b']);
  });

  it('a recursive CTE reads itself', async () => {
    const analysis = await analyse(
      'WITH RECURSIVE days(d) AS (SELECT min(day) FROM orders UNION ALL SELECT d + 1 FROM days WHERE d < 10) SELECT * FROM days',
    );
    expect([analysis.referenced_aliases, analysis.ctes, analysis.set_operations]).toEqual([
      ['orders'],
      ['days'],
      ['UNION ALL'],
    ]);
  });
});

describe('a successful analysis', () => {
  it('reports aliases, CTEs, functions, set operations and subqueries', async () => {
    const code = `WITH paid AS (SELECT * FROM orders WHERE status = 'paid')
      SELECT customer_id, sum(total) AS revenue FROM paid WHERE customer_id IN (SELECT id FROM customers)
      GROUP BY ALL
      UNION ALL BY NAME
      SELECT customer_id, 0 AS revenue FROM (SELECT * FROM refunds) r`;
    expect(await analyse(code, ['orders', 'customers', 'refunds'])).toEqual({
      statement: 'SELECT',
      referenced_aliases: ['orders', 'customers', 'refunds'],
      ctes: ['paid'],
      functions: ['sum'],
      set_operations: ['UNION ALL BY NAME'],
      subqueries: 2,
    });
  });
});
