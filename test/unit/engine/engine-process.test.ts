/**
 * An engine task's input may still be on its way when the task is asked for (a recipe run's
 * inputs download meanwhile, shared/engine/recipe-engines.ts): the task runs once it comes,
 * and an input that cannot be had fails the task with its own error, holding no engine slot.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors/app-error';
import { ENGINE_SLOTS, runInEngineProcess } from '../../../shared/engine/isolation/engine-process';
import { spentCpuOf } from '../../../shared/engine/isolation/spent-cpu';
import type { RecipeRunInput } from '../../../shared/engine/recipe-run';
import type { BindInput } from '../../../shared/engine/recipe-sql-bind';

const LIMITS = { memoryMb: 1024, timeoutMs: 20_000 };
const sales: BindInput = {
  code: 'SELECT amount * 2 AS doubled FROM sales',
  tables: [{ alias: 'sales', definition: 'amount BIGINT' }],
};

describe('an engine task whose input is still coming', () => {
  it('runs once its input is there', async () => {
    const late = sleep(300).then(() => sales);
    const { result } = await runInEngineProcess('describe', late, LIMITS);
    expect(result).toEqual([{ name: 'doubled', type: 'BIGINT' }]);
  });

  it('fails with its input’s own error, and gives its slot back', async () => {
    const missing = new AppError('20-1059', { params: [7, 1] });
    // More failed inputs than there are slots: were a slot kept by any, the last task below would wait forever.
    for (let attempt = 0; attempt <= ENGINE_SLOTS; attempt++) {
      const refused = sleep(50).then((): BindInput => {
        throw missing;
      });
      await expect(runInEngineProcess('describe', refused, LIMITS)).rejects.toBe(missing);
    }
    const { result } = await runInEngineProcess('describe', sales, LIMITS);
    expect(result).toEqual([{ name: 'doubled', type: 'BIGINT' }]);
  });
});

describe('an engine task stopped before it answers', () => {
  it('carries the CPU its process spent until the stop beside the reason it stopped with', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spent-cpu-'));
    try {
      const folders = { inDir: dir, outDir: join(dir, 'out'), spillDir: join(dir, 'spill') };
      await mkdir(folders.outDir);
      const controller = new AbortController();
      const reason = new AppError('10-444');
      setTimeout(() => controller.abort(reason), 2500);
      // A cross join of 10^10 rows: busy far longer than the 2.5 s it is given.
      const busy: RecipeRunInput = {
        code: 'SELECT sum(hash(a.i * b.i)) AS h FROM range(100000) a(i), range(100000) b(i)',
        sources: [],
        folders,
        previewRows: 10,
        analysisDepth: 'SHALLOW',
      };
      const error = await runInEngineProcess('recipe-run', busy, { ...LIMITS, signal: controller.signal }).then(
        () => undefined,
        (stopped: unknown) => stopped,
      );
      expect(error).toBe(reason);
      // A share of the 2.5 s on a core (the one test process' share of a loaded machine): not nothing.
      expect(spentCpuOf(error)).toBeGreaterThan(0.1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
