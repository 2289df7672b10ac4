import { describe, expect, it } from 'vitest';
import { assertReadOnlyQuery, readOnlyQueryProblem } from '../../../shared/data-sources/sql-statement';
import { refusal } from '../../support/refusal';

describe('read-only queries pass', () => {
  it.each([
    ['a plain select', 'SELECT 1'],
    ['lower case', 'select * from sales where region = 1'],
    ['a trailing semicolon', 'SELECT 1;'],
    ['trailing semicolons and a comment', 'SELECT 1;; -- done'],
    ['a common table expression', 'WITH x AS (SELECT 1 AS a) SELECT a FROM x'],
    ['VALUES', 'VALUES (1, 2), (3, 4)'],
    ['TABLE', 'TABLE sales'],
    ['a parenthesised union', '(SELECT 1) UNION ALL (SELECT 2)'],
    ['leading comments', '/* header */ -- note\nSELECT 1'],
    ['keywords inside a string', "SELECT 'drop table x; delete from y' AS s"],
    ['a doubled quote in a string', "SELECT 'it''s; drop table x' AS s"],
    ['keywords as quoted identifiers', 'SELECT "update", "delete" FROM "insert"'],
    ['keywords in backticks', 'SELECT `update` FROM t'],
    ['a doubled quote in an identifier', 'SELECT "a"";drop" FROM t'],
    ['keywords in a dollar quote', 'SELECT $$DROP TABLE t; DELETE FROM u$$'],
    ['keywords in a tagged dollar quote', 'SELECT $body$ ; DELETE FROM t $body$ AS b'],
    ['keywords in comments', 'SELECT 1 /* ; DELETE FROM t */ -- DROP TABLE t'],
    ['REPLACE as a function', "SELECT replace(a, 'x', 'y') FROM t"],
    ['INSERT and TRUNCATE as functions', "SELECT insert(a, 1, 2, 'x'), TRUNCATE (3.14, 1) FROM t"],
    ['keywords as parts of qualified names', 'SELECT t.update, t . delete FROM t'],
    ['words that merely contain keywords', 'SELECT last_update, created_at, deleted, dropped_by, into_x FROM updates'],
    [
      'statement-only commands as column names',
      'SELECT comment, load, analyze, set_id, use_count, copy, vacuum FROM reviews',
    ],
    ['parameters and $ in identifiers', 'SELECT a$b, $1, $session_var FROM t'],
    ['a Windows path in a standard string', "SELECT 'C:\\' AS root FROM t"],
    ['a backslash-escaped quote in a Snowflake string', "SELECT 'it\\'s' FROM t"],
    ['a Snowflake line comment', 'SELECT 1 // note\nFROM t'],
    ['unicode identifiers', 'SELECT größe, "naïve" FROM übersicht'],
    ['numbers with exponents', 'SELECT 1.5e10, .5, 3. FROM t'],
  ])('%s', (_label, sql) => {
    expect(readOnlyQueryProblem(sql)).toBeUndefined();
  });

  it('takes an unterminated quote or comment as running to the end: the warehouse rejects the syntax', () => {
    expect(readOnlyQueryProblem("SELECT 'unterminated ; DROP TABLE t")).toBeUndefined();
    expect(readOnlyQueryProblem('SELECT 1 /* unterminated ; DROP TABLE t')).toBeUndefined();
  });
});

describe('anything but one read-only query is refused', () => {
  it.each([
    'INSERT INTO t VALUES (1)',
    'UPDATE t SET a = 1',
    'DELETE FROM t',
    'MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DELETE',
    'UPSERT INTO t VALUES (1)',
    'REPLACE INTO t VALUES (1)',
    'CREATE TABLE t (a INT)',
    'DROP TABLE t',
    'ALTER TABLE t ADD COLUMN b INT',
    'TRUNCATE TABLE t',
    'RENAME TABLE t TO u',
    'GRANT SELECT ON t TO r',
    'REVOKE SELECT ON t FROM r',
    "COPY INTO t FROM '@stage'",
    "COPY t TO '/tmp/x'",
    'CALL proc()',
    'EXEC proc',
    "EXECUTE IMMEDIATE 'DROP TABLE t'",
    'SET x = 1',
    'USE DATABASE other',
    "COMMENT ON TABLE t IS 'x'",
    'VACUUM',
    'ANALYZE t',
    "ATTACH 'x.db'",
    'DETACH x',
    "PUT 'file:///x' @stage",
    '@stage',
    'REMOVE @stage',
    "UNLOAD ('SELECT 1') TO 's3://b/'",
    'LOAD httpfs',
    'INSTALL httpfs',
    'SHOW TABLES',
    'EXPLAIN SELECT 1',
    'BEGIN',
  ])('%s', (sql) => {
    expect(readOnlyQueryProblem(sql)).toBeDefined();
  });

  it.each([
    ['DML after a common table expression', 'WITH x AS (SELECT 1) DELETE FROM t'],
    ['DML inside a common table expression', 'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d'],
    ['a second statement', 'SELECT 1; DROP TABLE t'],
    ['a second read-only statement', 'SELECT 1; SELECT 2'],
    ['a second statement after comments', 'SELECT 1; /* */ -- x\n DELETE FROM t'],
    ['SELECT INTO, which creates a table', 'SELECT * INTO backup FROM t'],
    ['a number glued to INTO', 'SELECT 1into backup'],
    ['a locking read', 'SELECT * FROM t FOR UPDATE'],
    ['statements without a separator', 'SELECT 1 DROP TABLE t'],
    ['EXEC even as a call', "SELECT 1 EXEC('DROP TABLE t')"],
    ['EXECUTE even as a call', "SELECT 1 EXECUTE ('DROP TABLE t')"],
    ['INSERT not called as a function', 'SELECT 1 INSERT INTO t SELECT 2'],
    ['mixed case', 'SeLeCt 1; dRoP tAbLe t'],
  ])('%s', (_label, sql) => {
    expect(readOnlyQueryProblem(sql)).toBeDefined();
  });

  it.each([
    // Standard SQL ends the string at \' and runs DROP; backslash dialects keep it in the string.
    ['a backslash that only escapes in some dialects', "SELECT '\\'; DROP TABLE t; --'"],
    // Backslash dialects close the string after \'' and run DROP; standard SQL keeps it in the string.
    ['a backslash-escaped quote before a closing one', "SELECT '\\'' ; DROP TABLE t; --'"],
    ['a nested comment opener, read flat', 'SELECT 1 /* /* */ ; DELETE FROM t; */'],
    ['a nested comment opener, read nested', "SELECT 1 /* /* */ ' */ ; DELETE FROM t; --'"],
    ['a Snowflake line comment hiding a quote', "SELECT 1 // '\n; DROP TABLE t; --'"],
  ])('in any dialect reading: %s', (_label, sql) => {
    expect(readOnlyQueryProblem(sql)).toBeDefined();
  });

  it('refuses a query that is only comments', () => {
    expect(readOnlyQueryProblem('-- nothing\n/* at all */')).toBe('must contain a query');
  });

  it('says why, naming a keyword but nothing else of the query', () => {
    expect(readOnlyQueryProblem('SELECT 1; SELECT 2')).toBe('must be a single statement');
    expect(readOnlyQueryProblem('SHOW TABLES')).toBe('must start with SELECT, WITH, VALUES, TABLE or "("');
    expect(readOnlyQueryProblem('WITH x AS (SELECT 1) DELETE FROM secret_table')).toBe(
      'must not use DELETE: only read-only queries may define a source',
    );
  });
});

describe('assertReadOnlyQuery', () => {
  it('throws 30-1009 with the reason', () => {
    const error = refusal(() => assertReadOnlyQuery('DROP TABLE t'));
    expect(error.code).toBe('30-1009');
    expect(error.status).toBe(400);
    expect(error.extraDetails).toEqual({ query: 'must start with SELECT, WITH, VALUES, TABLE or "("' });
  });

  it('returns quietly for a read-only query', () => {
    expect(() => assertReadOnlyQuery('SELECT 1')).not.toThrow();
  });
});
