/**
 * The analyzer's engine is bounded in memory and time (docs/engine-limits.md): code whose
 * constant expressions DuckDB would evaluate outside its memory limit while binding answers
 * 40-50003 within ANALYSER_PROCESS's bounds, and this process's memory does not grow with
 * it. The analyzer keeps answering afterwards.
 */
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../shared/errors/app-error';
import { ENGINE_SLOTS } from '../../../shared/engine/isolation/engine-process';
import { ANALYSER_PROCESS, describeRecipeOutput, type AliasColumns } from '../../../shared/engine/recipe-sql-describe';

const sales: AliasColumns[] = [{ alias: 'sales', columns: [{ name: 'amount', type: 'BIGINT' }] }];

async function refusal(code: string, signal?: AbortSignal, deadline?: number): Promise<unknown> {
  return describeRecipeOutput(code, sales, { signal, deadline }).then(
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

/** CPU ticks spent so far by this process's child processes that are still alive (the engine processes). */
async function childCpuTicks(): Promise<number> {
  let ticks = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Fields after the command's closing parenthesis: state, ppid, ... utime (12th), stime (13th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === process.pid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks;
}

describe('the analyzer while every engine is busy', () => {
  it('answers 50-1012 with a retry time once it can no longer answer before the deadline, and runs nothing', async () => {
    // Folding a levenshtein of two 60,000-character constants takes seconds of CPU and a few MB:
    // each of these holds an engine slot. The first runs until ANALYSER_PROCESS's time stops it;
    // the test gives up on the others (their caller's signal) once it has seen the 50-1012.
    const busy = "SELECT levenshtein(repeat('a', 60000), repeat('b', 60000)) AS d FROM sales";
    const othersGiveUp = new AbortController();
    const gaveUp = new Error('the holders are no longer needed');
    const [timed, ...others] = Array.from({ length: ENGINE_SLOTS }, (_, index) =>
      refusal(busy, index === 0 ? undefined : othersGiveUp.signal),
    );
    await sleep(2000);

    // 500 ms to wait: the deadline leaves the analyzer's time, a second to answer, and that.
    const started = performance.now();
    const deadline = Date.now() + ANALYSER_PROCESS.timeoutMs + 1000 + 500;
    const error = await refusal('SELECT amount FROM sales', new AbortController().signal, deadline);
    const waitedMs = performance.now() - started;
    expect(isAppError(error) && error.code).toBe('50-1012');
    expect(isAppError(error) && error.extraDetails?.retry_after_seconds).toBe(ANALYSER_PROCESS.timeoutMs / 1000);
    expect(waitedMs).toBeGreaterThanOrEqual(450);
    expect(waitedMs).toBeLessThan(2000);

    othersGiveUp.abort(gaveUp);
    for (const holder of await Promise.all(others)) expect(holder).toBe(gaveUp);
    const stopped = await timed;
    expect(isAppError(stopped) && stopped.code).toBe('40-50003');
    expect(isAppError(stopped) && stopped.extraDetails?.cause).toMatch(
      new RegExp(`^binding the query took more than ${ANALYSER_PROCESS.timeoutMs / 1000} s`),
    );
    // The refused analysis never started later: no engine process works once the holders are stopped.
    const before = await childCpuTicks();
    await sleep(1000);
    expect((await childCpuTicks()) - before).toBeLessThan(5);
    const description = await describeRecipeOutput('SELECT amount FROM sales', sales, {
      deadline: Date.now() + 30_000,
    });
    expect(description.columns).toEqual([{ name: 'amount', type: 'BIGINT' }]);
  }, 90_000);
});
