import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDuckDb } from '../../../shared/engine/duckdb';
import { scratch, type Scratch } from './scratch';

let dir: Scratch;
beforeAll(async () => {
  dir = await scratch('engine-duckdb');
});
afterAll(async () => {
  await dir.remove();
});

const setting = async (connection: DuckDBConnection, name: string) => (await connection.runAndReadAll(`SELECT current_setting('${name}')`)).getRows()[0]?.[0];

describe('withDuckDb', () => {
  it('configures the instance for the worker and its work folder', async () => {
    const settings = await withDuckDb(dir.dir, async (connection) => ({
      threads: await setting(connection, 'threads'),
      temp: await setting(connection, 'temp_directory'),
      timeZone: await setting(connection, 'TimeZone'),
      autoload: await setting(connection, 'autoload_known_extensions'),
    }));
    expect(settings).toEqual({ threads: BigInt(os.availableParallelism()), temp: join(dir.dir, '.duckdb-spill'), timeZone: 'UTC', autoload: false });
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
