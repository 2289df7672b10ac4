import { rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/**
 * One in-memory DuckDB per job step, sized for the worker it runs in. The instance lives only
 * as long as the callback: a Lambda worker is reused across jobs, and a forgotten instance
 * keeps its memory and threads.
 */

/** Share of the machine's memory DuckDB may use; the rest stays with Node and the OS. */
const MEMORY_SHARE = 0.6;

/** Where DuckDB spills what does not fit in memory, inside the job's work folder. */
const SPILL_FOLDER = '.duckdb-spill';

function workerSettings(workDir: string): Record<string, string> {
  return {
    threads: String(os.availableParallelism()),
    memory_limit: `${Math.floor((os.totalmem() * MEMORY_SHARE) / 2 ** 20)}MB`,
    temp_directory: join(workDir, SPILL_FOLDER),
    // Workers have no network; everything needed (parquet, json, icu) is built in.
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  };
}

export async function withDuckDb<T>(workDir: string, use: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:', workerSettings(workDir));
  try {
    const connection = await instance.connect();
    try {
      // Timestamps with a time zone are rendered in UTC whatever the machine's zone is.
      await connection.run("SET TimeZone = 'UTC'");
      return await use(connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
    await rm(join(workDir, SPILL_FOLDER), { recursive: true, force: true });
  }
}
