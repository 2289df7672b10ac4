import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyseRecipeSql } from '../../../shared/engine/recipe-sql';
import { AppError } from '../../../shared/errors/app-error';

/**
 * Generated SELECTs over generated aliases: joins, subqueries in FROM, IN, EXISTS and the
 * select list, CTEs, set operations, window functions, and alias names inside string literals,
 * comments and column names, where they are not table references. The generator knows which
 * aliases it used as tables; the analyzer must find exactly those: success when all are read,
 * 40-50008 naming the others otherwise, never another answer.
 */

/** A piece of SQL with the aliases it reads as tables (lower case). */
interface Sql {
  readonly sql: string;
  readonly used: ReadonlySet<string>;
}

const sql = (text: string, ...parts: readonly Sql[]): Sql => ({
  sql: text,
  used: new Set(parts.flatMap((part) => [...part.used])),
});
const join = (separator: string, parts: readonly Sql[]): Sql =>
  sql(parts.map((part) => part.sql).join(separator), ...parts);

// Aliases as the recipe rules allow them; the prefix keeps them apart from keywords and functions.
const aliasArb = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/).map((name) => `src_${name}`);
const aliasesArb = fc.uniqueArray(aliasArb, { minLength: 1, maxLength: 5, selector: (alias) => alias.toLowerCase() });

/** An alias written as a table: as declared, in upper case, or quoted. */
const tableArb = (aliases: readonly string[]): fc.Arbitrary<Sql> =>
  fc.tuple(fc.constantFrom(...aliases), fc.constantFrom('plain', 'upper', 'quoted')).map(([alias, style]) => ({
    sql: style === 'upper' ? alias.toUpperCase() : style === 'quoted' ? `"${alias}"` : alias,
    used: new Set([alias.toLowerCase()]),
  }));

/** Text that names an alias without reading it. */
const decoyArb = (aliases: readonly string[]): fc.Arbitrary<Sql> =>
  fc.tuple(fc.constantFrom(...aliases), fc.constantFrom('string', 'column', 'block', 'line')).map(([alias, style]) => {
    if (style === 'string') return sql(`'SELECT * FROM ${alias}'`);
    if (style === 'column') return sql(`"${alias}"."${alias}"`);
    if (style === 'block') return sql(`/* FROM ${alias} */ 1`);
    return sql(`-- JOIN ${alias}\n 2`);
  });

function queryArb(aliases: readonly string[], ctes: readonly string[], depth: number): fc.Arbitrary<Sql> {
  const cteRefs = ctes.map((name) => fc.constant(sql(name)));
  const source: fc.Arbitrary<Sql> =
    depth <= 0
      ? fc.oneof(tableArb(aliases), ...cteRefs)
      : fc.oneof(
          { weight: 3, arbitrary: tableArb(aliases) },
          ...cteRefs.map((arbitrary) => ({ weight: 1, arbitrary })),
          {
            weight: 1,
            arbitrary: queryArb(aliases, ctes, depth - 1).map((inner) => sql(`(${inner.sql})`, inner)),
          },
        );
  const subquery = depth <= 0 ? fc.constant(sql('SELECT 1')) : queryArb(aliases, ctes, depth - 1);
  const expression = fc.oneof(
    fc.constantFrom(
      sql('c1'),
      sql('42'),
      sql('upper(c1)'),
      sql('coalesce(c1, c2, 0)'),
      sql('sum(c2) OVER (PARTITION BY c1 ORDER BY c2)'),
      sql("CASE WHEN c1 > 1 THEN 'a' ELSE 'b' END"),
    ),
    decoyArb(aliases),
    subquery.map((inner) => sql(`(SELECT count(*) FROM (${inner.sql}) AS s)`, inner)),
  );
  const condition = fc.oneof(
    fc.constant(sql('c1 > 0')),
    subquery.map((inner) => sql(`c1 IN (SELECT 1 FROM (${inner.sql}) AS s)`, inner)),
    subquery.map((inner) => sql(`EXISTS (${inner.sql})`, inner)),
  );
  const select = fc
    .record({
      items: fc.array(expression, { minLength: 1, maxLength: 3 }),
      from: source,
      joins: fc.array(source, { maxLength: 2 }),
      where: fc.option(condition, { nil: undefined }),
    })
    .map(({ items, from, joins, where }) => {
      const joined = joins.map((table, index) => sql(`JOIN ${table.sql} AS j${index} ON true`, table));
      const parts = [join(', ', items), from, ...joined, ...(where ? [where] : [])];
      return sql(
        `SELECT ${join(', ', items).sql} FROM ${from.sql} AS f ${joined.map((part) => part.sql).join(' ')}${where ? ` WHERE ${where.sql}` : ''}`,
        ...parts,
      );
    });
  if (depth <= 0) return select;
  return fc.oneof(
    { weight: 3, arbitrary: select },
    {
      weight: 1,
      arbitrary: fc
        .tuple(select, fc.constantFrom('UNION ALL', 'UNION', 'INTERSECT', 'EXCEPT'), select)
        .map(([left, operation, right]) => sql(`(${left.sql}) ${operation} (${right.sql})`, left, right)),
    },
    { weight: 1, arbitrary: withCtes(aliases, ctes, depth) },
  );
}

/** WITH cte_<n> AS (...), ...: each CTE may read the ones before it, the query all of them. */
function withCtes(aliases: readonly string[], ctes: readonly string[], depth: number): fc.Arbitrary<Sql> {
  const first = `cte_${depth}_a`;
  const second = `cte_${depth}_b`;
  return fc
    .tuple(
      queryArb(aliases, ctes, depth - 1),
      queryArb(aliases, [...ctes, first], depth - 1),
      queryArb(aliases, [...ctes, first, second], depth - 1),
    )
    .map(([a, b, body]) =>
      sql(`WITH ${first} AS (${a.sql}), ${second} AS (${b.sql}) SELECT * FROM (${body.sql}) AS w`, a, b, body),
    );
}

const caseArb = aliasesArb.chain((aliases) =>
  fc.record({ aliases: fc.constant(aliases), query: queryArb(aliases, [], 3) }),
);

const appearsAsWord = (code: string, alias: string) =>
  new RegExp(`(^|[^A-Za-z0-9_])${alias}($|[^A-Za-z0-9_])`, 'i').test(code);

describe('generated recipe SQL', () => {
  it('is analysed to exactly the aliases it reads as tables', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ aliases, query }) => {
        const unused = aliases.filter((alias) => !query.used.has(alias.toLowerCase()));
        const outcome = await analyseRecipeSql(query.sql, aliases).then(
          (analysis) => ({ analysis }),
          (error: unknown) => ({ error }),
        );
        if ('error' in outcome) {
          expect(outcome.error).toBeInstanceOf(AppError);
          const error = outcome.error as AppError;
          expect([error.code, error.extraDetails]).toEqual(['40-50008', { aliases: unused }]);
          return;
        }
        expect(unused).toEqual([]);
        expect(outcome.analysis.referenced_aliases).toEqual(aliases);
        for (const alias of outcome.analysis.referenced_aliases) expect(appearsAsWord(query.sql, alias)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
