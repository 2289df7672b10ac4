import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance, quotedString, type DuckDBConnection } from '@duckdb/node-api';
import { budgetSettings, engineBudget, type EngineBudget } from './limits';

/**
 * One in-memory DuckDB per job step, sized for the worker it runs in (limits.ts). The instance
 * lives only as long as the callback: a Lambda worker is reused across jobs, and a forgotten
 * instance keeps its memory and threads.
 */

/** Where DuckDB spills what does not fit in memory, inside the job's work folder. */
const SPILL_FOLDER = '.duckdb-spill';

function workerSettings(workDir: string): Record<string, string> {
  return {
    ...budgetSettings(engineBudget('worker'), join(workDir, SPILL_FOLDER)),
    // Workers have no network; everything needed (parquet, json, icu) is built in.
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  };
}

/**
 * The engine of a job step that reads and writes the files it chose itself (never user SQL).
 * When `signal` aborts (the job failed, was aborted or went silent), the running statement is
 * interrupted and the step fails with the signal's reason.
 */
export async function withDuckDb<T>(
  workDir: string,
  use: (connection: DuckDBConnection) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  signal?.throwIfAborted();
  const instance = await DuckDBInstance.create(':memory:', workerSettings(workDir));
  try {
    const connection = await instance.connect();
    try {
      // Timestamps with a time zone are rendered in UTC whatever the machine's zone is.
      await connection.run("SET TimeZone = 'UTC'");
      return await interruptible(connection, signal, () => use(connection));
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
    await rm(join(workDir, SPILL_FOLDER), { recursive: true, force: true });
  }
}

/** Runs `work` on `connection`, interrupting its statement when `signal` aborts; the signal's reason is then the failure. */
export async function interruptible<T>(
  connection: DuckDBConnection,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (!signal) return work();
  const interrupt = () => connection.interrupt();
  signal.addEventListener('abort', interrupt, { once: true });
  try {
    return await work();
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  } finally {
    signal.removeEventListener('abort', interrupt);
  }
}

/** How a sandboxed engine is sized, and the folders its SQL may use. */
export interface SandboxOptions {
  /** Folders the SQL may read and write (a job's inputs and output); none by default. */
  readonly directories?: readonly string[];
  /** What the engine may use (limits.ts); the analyzer's budget by default. */
  readonly budget?: EngineBudget;
  /**
   * Where the engine spills what does not fit in its memory: a folder of the job's own (a
   * recipe run's). None by default, and then nothing is spilled: DuckDB's own default is
   * `.tmp` in the process's working directory, which is read-only in Lambda and, on the
   * twin, outside every job's folder.
   */
  readonly spillDirectory?: string;
}

/**
 * An engine for user SQL (recipes, and their analysis), locked down before any of it runs,
 * so that even a query the analyzer let through cannot leave the data it is given:
 * - enable_external_access=false: no file, URL or database outside `directories` can be read
 *   or written (read_csv, COPY, ATTACH, EXPORT, INSTALL), and no extension can be loaded;
 * - lock_configuration=true: no SET, RESET or PRAGMA can change a setting afterwards, the two
 *   above included;
 * - extensions are never installed or loaded on the fly (the ones DuckDB ships are built in).
 * The order matters: DuckDB refuses to widen allowed_directories once external access is off,
 * and nothing can be set once the configuration is locked.
 */
export async function createSandboxedDuckDb(options: SandboxOptions = {}): Promise<DuckDBInstance> {
  const instance = await DuckDBInstance.create(':memory:', {
    ...budgetSettings(options.budget ?? engineBudget('analyser'), options.spillDirectory),
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
  });
  try {
    const setup = await instance.connect();
    try {
      const directories = options.directories ?? [];
      if (directories.length > 0)
        await setup.run(
          `SET allowed_directories = [${directories.map((directory) => quotedString(directory)).join(', ')}]`,
        );
      // GLOBAL: every connection of the instance renders timestamps in UTC, as workers do.
      await setup.run("SET GLOBAL TimeZone = 'UTC'");
      await setup.run('SET enable_external_access = false');
      await setup.run('SET lock_configuration = true');
    } finally {
      setup.closeSync();
    }
    return instance;
  } catch (error) {
    instance.closeSync();
    throw error;
  }
}

/** Runs `use` on a connection of a fresh sandboxed engine (createSandboxedDuckDb), closed afterwards. */
export async function withSandboxedDuckDb<T>(
  options: SandboxOptions,
  use: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  return withEngine(await createSandboxedDuckDb(options), use);
}

/** Runs `use` on a connection of `instance`, then closes both. */
export async function withEngine<T>(
  instance: DuckDBInstance,
  use: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  try {
    const connection = await instance.connect();
    try {
      return await use(connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}
