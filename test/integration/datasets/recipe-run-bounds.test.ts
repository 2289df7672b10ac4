/**
 * A recipe run is bounded in memory and time, and a run that ends FAILED really stops: its
 * engine process is killed and its scratch folder removed within seconds (docs/engine-limits.md).
 * The run's function is given 1,536 MB here (Lambda's AWS_LAMBDA_FUNCTION_MEMORY_SIZE), so its
 * engine process may hold 1,024 MB. Each bound has a twin of its own: the time bound's gives every
 * step 5 s, so the cross join that fills it burns 5 s of a core rather than 15; the memory bound's
 * 60 s: the 8 GB constant reaches the memory bound in a few seconds of a core, but a fresh-clone CI
 * run on two loaded cores once spent the 15 s it had before that on the join and the engine's start.
 */
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { CUSTOMERS_CSV, executeAndWait, importedTable, joinGraph, ordersCsv } from './run-fixtures';

let env: TestTwin;
let api: ApiClient;
let tables: { orders: number; customers: number };
const memoryBefore = process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE;

/** A twin whose steps each have `taskTimeoutSeconds`, with the two tables imported; closed after the describe. */
function twinWithTables(taskTimeoutSeconds: number): void {
  beforeAll(async () => {
    process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE = '1536';
    env = await startTestTwin({ buckets: ['landing'], taskTimeoutSeconds, retryIntervalMs: 10 });
    api = env.admin;
    tables = {
      orders: await importedTable(api, env, ordersCsv(2000)),
      customers: await importedTable(api, env, CUSTOMERS_CSV),
    };
  });
  afterAll(async () => {
    await env?.close();
    if (memoryBefore === undefined) delete process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE;
    else process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE = memoryBefore;
  });
}

/** CPU ticks (user + system) of this process's child processes: the engine processes. */
async function childCpuTicks(): Promise<number> {
  let ticks = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // Fields after the command's closing parenthesis: state, ppid, ... utime (14th), stime (15th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === process.pid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks;
}

/** Polls `check` until it holds (bounded). */
async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return check();
}

/** The scratch folders of job `jobId` in the twin's scratch root (workers name them by job). */
const scratchFoldersOf = async (jobId: string) =>
  (await readdir(env.twin.scratchRoot)).filter((name) => name.startsWith(`${jobId}-`));

describe('a recipe run past its time bound', () => {
  twinWithTables(5);

  it('a cross join of 10^13 rows ends FAILED 10-1047 at the time limit, saying so; its engine stops and its folder goes', async () => {
    const graph = await joinGraph(api, tables, {
      aggregate: 'SELECT count(*) AS n FROM joined a, joined b, joined c, joined d',
    });
    const done = await executeAndWait(api, graph, graph.aggregate, false);
    expect(done.execution).toMatchObject({
      status: 'FAILED',
      error: {
        code: '10-1047',
        message: expect.stringContaining('time limit'),
        cause: expect.stringMatching(/^time limit/),
      },
    });
    expect(JSON.stringify(done.execution)).not.toMatch(/States\.|Lambda\.|Sandbox\./);
    // The engine process is killed at the worker's next heartbeat, at most 5 s later, and the job's folder removed.
    const stopped = await eventually(async () => {
      const before = await childCpuTicks();
      await new Promise((resolve) => setTimeout(resolve, 500));
      return (
        (await childCpuTicks()) - before < 10 && (await scratchFoldersOf(done.execution?.job_id ?? '')).length === 0
      );
    }, 15_000);
    expect(stopped).toBe(true);
  });
});

describe('a recipe run past its memory bound', () => {
  twinWithTables(60);

  it('a constant of 8 GB (len(range(10^9))) ends FAILED 10-500 saying the run needed more memory; the twin goes on', async () => {
    const graph = await joinGraph(api, tables, { aggregate: 'SELECT len(range(1000000000)) AS n, name FROM joined' });
    const residentBefore = process.memoryUsage().rss;
    const done = await executeAndWait(api, graph, graph.aggregate, false);
    expect(done.execution).toMatchObject({
      status: 'FAILED',
      error: { code: '10-500', message: expect.stringContaining('more than the 1024 MB of memory') },
    });
    // The engine process held the memory, not the twin.
    expect(process.memoryUsage().rss - residentBefore).toBeLessThan(200 * 2 ** 20);
    const healthy = await joinGraph(api, tables);
    expect((await executeAndWait(api, healthy, healthy.aggregate, false)).run_state).toBe('SUCCEEDED');
  });
});
