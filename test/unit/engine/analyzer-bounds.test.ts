/**
 * The analyzer's engine is bounded in memory and time (docs/engine-limits.md): code whose
 * constant expressions DuckDB would evaluate outside its memory limit while binding answers
 * 40-50003 within ANALYZER_PROCESS's bounds, and this process's memory does not grow with
 * it. The analyzer keeps answering afterwards.
 */
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../shared/errors/app-error';
import { describeRecipeOutput, type AliasColumns } from '../../../shared/engine/recipe-sql-describe';

const sales: AliasColumns[] = [{ alias: 'sales', columns: [{ name: 'amount', type: 'BIGINT' }] }];

async function refusal(code: string, signal?: AbortSignal): Promise<unknown> {
  return describeRecipeOutput(code, sales, signal).then(
    () => undefined,
    (error: unknown) => error,
  );
}

const residentMb = () => process.memoryUsage().rss / 2 ** 20;

describe('the analyzer within its bounds', () => {
  it.each([
    ["SELECT repeat('x', 2000000000) AS s FROM sales", 'memory'],
    ['SELECT len(list_resize([1], 1000000000)) AS n FROM sales', 'memory'],
    ['SELECT len(range(1000000000)) AS n FROM sales', 'memory'],
  ])('%s answers 40-50003, and this process stays small', async (code) => {
    const before = residentMb();
    const error = await refusal(code);
    expect(isAppError(error) && error.code).toBe('40-50003');
    expect(isAppError(error) && error.extraDetails?.cause).toMatch(/^binding the query took more than/);
    // The engine process took the memory, not this one.
    expect(residentMb() - before).toBeLessThan(100);
  });

  it('answers as before once an engine process was stopped', async () => {
    await refusal("SELECT repeat('x', 2000000000) AS s FROM sales");
    const description = await describeRecipeOutput('SELECT amount * 2 AS doubled FROM sales', sales);
    expect(description.columns).toEqual([{ name: 'doubled', type: 'BIGINT' }]);
  });

  it("stops the engine when the caller gives up (the request timed out), with the caller's reason", async () => {
    const controller = new AbortController();
    const gaveUp = new Error('the request ran past its time limit');
    setTimeout(() => controller.abort(gaveUp), 200);
    expect(await refusal('SELECT len(range(1000000000)) AS n FROM sales', controller.signal)).toBe(gaveUp);
  });
});
