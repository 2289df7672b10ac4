import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** A temporary folder for one test file's inputs and outputs, removed by `remove`. */
export interface Scratch {
  readonly dir: string;
  /** Writes `content` to `<dir>/<name>` and answers its path. */
  file(name: string, content: string | Uint8Array): Promise<string>;
  remove(): Promise<void>;
}

export async function scratch(prefix: string): Promise<Scratch> {
  const dir = await mkdtemp(join(os.tmpdir(), `${prefix}-`));
  return {
    dir,
    async file(name, content) {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Runs `use` on a plain DuckDB connection, to build fixtures and read results back independently of the engine. */
export async function withPlainDuckDb<T>(use: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    try {
      await connection.run("SET TimeZone = 'UTC'");
      return await use(connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}
