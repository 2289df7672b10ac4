/**
 * The share of the expensive-SQL corpus (test/fuzz/expensive-sql.ts) that `npm test` sends:
 * each query to the analyzer with its tables (so DuckDB binds it), to a recipe create and to a
 * version update. Every answer is a catalogue code or a save, within the analyzer's bound, and
 * the twin (in this process) grows by less than 300 MB over all of them. `npm run fuzz` sends
 * the whole corpus; recipe runs past their bounds are in test/integration/datasets/recipe-run-bounds.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { EXPENSIVE_SQL, isBoundedAnswer, probeExpensiveSql, type ExpensiveOutcome } from '../../fuzz/expensive-sql';

const SHARE = ['repeat 2e9', 'range 1e9', 'cross join 7 ways', 'recursive CTE without end', 'deep nesting'];

let env: TestTwin;
beforeAll(async () => {
  env = await startTestTwin();
});
afterAll(async () => {
  await env?.close();
});

describe('expensive recipe SQL', () => {
  it("is answered within the analyzer's bound with a catalogue code or a save, and the twin stays small", async () => {
    const residentBefore = process.memoryUsage().rss;
    const outcomes: ExpensiveOutcome[] = [];
    for (const sql of EXPENSIVE_SQL.filter((candidate) => SHARE.includes(candidate.name))) {
      outcomes.push(...(await probeExpensiveSql(env.admin, sql)));
    }
    expect(outcomes.filter((outcome) => !isBoundedAnswer(outcome))).toEqual([]);
    // Binding huge constants is refused as the SQL's fault; the others bind (or parse) at once.
    const analyses = Object.fromEntries(
      outcomes.filter((o) => o.operation === 'analyse').map((o) => [o.name, o.code ?? o.status]),
    );
    expect(analyses).toEqual({
      'repeat 2e9': '40-50003',
      'range 1e9': '40-50003',
      'cross join 7 ways': 200,
      'recursive CTE without end': 200,
      'deep nesting': 200,
    });
    expect(Math.max(...outcomes.map((outcome) => outcome.ms))).toBeLessThan(15_000);
    expect(process.memoryUsage().rss - residentBefore).toBeLessThan(300 * 2 ** 20);
  });
});
