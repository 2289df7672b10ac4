/**
 * Recipe SQL that asks for more than any engine should give (docs/engine-limits.md): huge
 * constants, cross joins, recursive CTEs without end, deep nesting, backtracking patterns. Each
 * reads one alias, `t`, of one BIGINT column `x`. `npm run fuzz` sends them all to the analyzer,
 * to recipe creates and version updates; `npm test` sends a share (test/integration/api/expensive-sql.test.ts).
 * Every answer must be a catalogue code within the analyzer's bound, and the twin must stay small.
 */
import type { ApiClient } from '../support/api-client';

export interface ExpensiveSql {
  readonly name: string;
  readonly code: string;
}

const NESTING = 5000;

export const EXPENSIVE_SQL: readonly ExpensiveSql[] = [
  { name: 'repeat 2e9', code: "SELECT repeat('x', 2000000000) AS s FROM t" },
  { name: 'range 1e9', code: 'SELECT len(range(1000000000)) AS n FROM t' },
  { name: 'list_resize 1e9', code: 'SELECT len(list_resize([1], 1000000000)) AS n FROM t' },
  { name: 'nested repeat', code: "SELECT len(repeat(repeat('x', 100000), 100000)) AS n FROM t" },
  { name: 'list_sum of range', code: 'SELECT list_sum(range(300000000)) AS n FROM t' },
  { name: 'generate_series 1e15', code: 'SELECT count(*) AS n FROM generate_series(1, 1000000000000000) g, t' },
  { name: 'string_agg over a cross join', code: "SELECT string_agg(a.x::VARCHAR, ',') AS s FROM t a, t b, t c, t d" },
  { name: 'cross join 7 ways', code: 'SELECT count(*) AS n FROM t a, t b, t c, t d, t e, t f, t g' },
  {
    name: 'recursive CTE without end',
    code: 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT max(n) AS n FROM r, t',
  },
  { name: 'deep nesting', code: `SELECT ${'('.repeat(NESTING)}x${')'.repeat(NESTING)} AS n FROM t` },
  { name: 'deep arithmetic', code: `SELECT ${Array.from({ length: 20000 }, () => 'x').join(' + ')} AS n FROM t` },
  {
    name: 'backtracking pattern',
    code: "SELECT regexp_matches(repeat('a', 10000000) || 'b', '(a+)+$') AS m FROM t",
  },
  { name: 'huge LIMIT constant', code: "SELECT x FROM t LIMIT len(repeat('x', 2000000000))" },
];

/** What the service answered to one expensive query on one operation. */
export interface ExpensiveOutcome {
  readonly name: string;
  readonly operation: 'analyse' | 'create' | 'update';
  readonly status: number;
  /** The problem's code, if the answer was one. */
  readonly code: string | undefined;
  readonly ms: number;
}

const TABLES = { t: [{ name: 'x', type: 'BIGINT' }] };

/** Sends `sql` to the analyzer (with the alias's columns, so DuckDB binds it), to a recipe create and to a version update. */
export async function probeExpensiveSql(api: ApiClient, sql: ExpensiveSql): Promise<ExpensiveOutcome[]> {
  const timed = async (
    operation: ExpensiveOutcome['operation'],
    call: () => Promise<{ status: number; problem: { code?: string } }>,
  ) => {
    const started = performance.now();
    const answer = await call();
    const code = answer.status >= 400 ? answer.problem.code : undefined;
    return { name: sql.name, operation, status: answer.status, code, ms: Math.round(performance.now() - started) };
  };
  const analyse = await timed('analyse', () =>
    api.call('analyzeRecipe', { body: { code: sql.code, aliases: ['t'], tables: TABLES } }),
  );
  const name = `expensive-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const created = await api.call('createRecipe', {
    body: { name, aliases: ['t'], recipe_version: { code: 'SELECT x FROM t' } },
  });
  const create = await timed('create', () =>
    api.call('createRecipe', { body: { name: `${name}-b`, aliases: ['t'], recipe_version: { code: sql.code } } }),
  );
  const params = { recipe_id: created.body.id, version_number: 1 };
  const version = await api.call('getRecipeVersion', { params });
  const update = await timed('update', () =>
    api.call('updateRecipeVersion', { params, body: { code: sql.code, lock_version: version.body.lock_version } }),
  );
  return [analyse, create, update];
}

/** Whether an outcome is an answer the service may give: created or updated, or a 4xx with a catalogue code. */
export function isBoundedAnswer(outcome: ExpensiveOutcome): boolean {
  if (outcome.status === 200 || outcome.status === 201) return true;
  return outcome.status >= 400 && outcome.status < 500 && outcome.code !== undefined && /^\d\d-\d+$/.test(outcome.code);
}
