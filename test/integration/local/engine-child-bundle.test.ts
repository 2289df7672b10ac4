/**
 * The twin's engine processes start from a bundle of engine-child.ts (infra/local/engine-child-bundle.ts),
 * not from source through tsx's loader, and serve tasks as the source does.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runInEngineProcess, useEngineChildBundle } from '../../../shared/engine/isolation/engine-process';
import { engineChildBundle } from '../../../infra/local/engine-child-bundle';

/** The command lines of this process's children. */
function childCommandLines(): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === process.pid ? [readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the twin's engine child bundle", () => {
  it('is made once per process, named by its content, under node_modules', async () => {
    const [first, second] = await Promise.all([engineChildBundle(), engineChildBundle()]);
    expect(second).toBe(first);
    expect(first).toMatch(/\/node_modules\/\.cache\/dps-engine-child\/engine-child-[0-9a-f]{16}\.mjs$/);
    expect(existsSync(first)).toBe(true);
  });

  it('is what new engine processes run, and they answer as from source', async () => {
    const bundle = await engineChildBundle();
    useEngineChildBundle(bundle);
    // Idle processes started with another environment are ended, not reused: this task gets a new one.
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'ERROR');
    const { result } = await runInEngineProcess(
      'describe',
      { code: 'SELECT amount * 2 AS doubled FROM sales', tables: [{ alias: 'sales', definition: 'amount BIGINT' }] },
      { memoryMb: 1024, timeoutMs: 20_000 },
    );
    expect(result).toEqual([{ name: 'doubled', type: 'BIGINT' }]);
    const engines = childCommandLines().filter((line) => line.includes('engine-child'));
    expect(engines.some((line) => line.includes(bundle) && !line.includes('tsx'))).toBe(true);
  });
});
