import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quotedString } from '@duckdb/node-api';
import { withDuckDb, withSandboxedDuckDb } from '../../../shared/engine/duckdb';
import { scratch, type Scratch } from './scratch';

let dir: Scratch;
beforeAll(async () => {
  dir = await scratch('engine-duckdb');
});
afterAll(async () => {
  await dir.remove();
});

const setting = async (connection: DuckDBConnection, name: string) =>
  (await connection.runAndReadAll(`SELECT current_setting('${name}')`)).getRows()[0]?.[0];

describe('withDuckDb', () => {
  it('configures the instance for the worker and its work folder', async () => {
    const settings = await withDuckDb(dir.dir, async (connection) => ({
      threads: await setting(connection, 'threads'),
      temp: await setting(connection, 'temp_directory'),
      timeZone: await setting(connection, 'TimeZone'),
      autoload: await setting(connection, 'autoload_known_extensions'),
    }));
    expect(settings).toEqual({
      threads: BigInt(os.availableParallelism()),
      temp: join(dir.dir, '.duckdb-spill'),
      timeZone: 'UTC',
      autoload: false,
    });
  });

  it('closes the instance and removes its spill folder, also when the work fails', async () => {
    let kept: DuckDBConnection | undefined;
    await expect(
      withDuckDb(dir.dir, async (connection) => {
        kept = connection;
        // What a spilling query would leave behind.
        await mkdir(join(dir.dir, '.duckdb-spill'));
        await writeFile(join(dir.dir, '.duckdb-spill', 'spill.tmp'), 'x');
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(existsSync(join(dir.dir, '.duckdb-spill'))).toBe(false);
    await expect(kept?.run('SELECT 1')).rejects.toThrow();
  });
});

describe("withDuckDb and its job's signal", () => {
  it("interrupts the running statement when the job is no longer running, failing with the signal's reason", async () => {
    const controller = new AbortController();
    const stopped = new Error('the job was failed meanwhile');
    setTimeout(() => controller.abort(stopped), 200);
    const started = performance.now();
    await expect(
      withDuckDb(
        dir.dir,
        (connection) => connection.run('SELECT count(*) FROM range(1000000) a, range(1000000) b'),
        controller.signal,
      ),
    ).rejects.toBe(stopped);
    // A cross join of 10^12 rows would take hours; interrupted, it ends at once.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('withSandboxedDuckDb and spilling', () => {
  // A sort of about 60 MB of rows in an engine of 32 MB: it completes only by spilling.
  const sortBeyondMemory = (connection: DuckDBConnection, out: string, rows = 1_000_000) =>
    connection.run(
      `COPY (SELECT i, md5(i::VARCHAR) AS h FROM range(0, ${rows}) t(i) ORDER BY h) TO ${quotedString(out)} (FORMAT parquet)`,
    );
  const small = { budget: { threads: 1, memoryLimitMb: 32, maxTempDirectorySizeMb: 1024 } };

  it('spills into the folder it is given, and completes what does not fit in its memory', async () => {
    const out = join(dir.dir, 'sorted');
    await mkdir(out);
    const spill = join(dir.dir, 'sandbox-spill');
    await withSandboxedDuckDb({ ...small, directories: [out], spillDirectory: spill }, async (connection) => {
      expect(await setting(connection, 'temp_directory')).toBe(spill);
      await sortBeyondMemory(connection, join(out, 'sorted.parquet'));
    });
    expect(existsSync(join(out, 'sorted.parquet'))).toBe(true);
  });

  it('spills no more than its max_temp_directory_size: past it, the query fails instead of filling the disk', async () => {
    const out = join(dir.dir, 'capped');
    await mkdir(out);
    const spill = join(dir.dir, 'capped-spill');
    const capped = { budget: { ...small.budget, maxTempDirectorySizeMb: 1 } };
    await withSandboxedDuckDb({ ...capped, directories: [out], spillDirectory: spill }, async (connection) => {
      expect(await setting(connection, 'max_temp_directory_size')).toBe('976.5 KiB');
      // Three times the rows: more than the 1 MB it may spill.
      await expect(sortBeyondMemory(connection, join(out, 'sorted.parquet'), 3_000_000)).rejects.toThrow(
        /Out of Memory/,
      );
    });
  });

  it('without a spill folder, spills nowhere (not into the working directory): the same sort runs out of memory', async () => {
    const out = join(dir.dir, 'unsorted');
    await mkdir(out);
    await withSandboxedDuckDb({ ...small, directories: [out] }, async (connection) => {
      expect(await setting(connection, 'temp_directory')).toBe('');
      await expect(sortBeyondMemory(connection, join(out, 'sorted.parquet'))).rejects.toThrow(/Out of Memory/);
    });
  });
});
