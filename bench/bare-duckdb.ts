/**
 * DuckDB as the benches' bare scripts use it: a fresh in-memory instance with its defaults per
 * measurement, nothing of the service around it.
 */
import { COPY_MS, withTimeout } from './import-twin';

/** A path as a SQL string literal. */
export const sqlLiteral = (path: string): string => `'${path.replaceAll("'", "''")}'`;

/**
 * Runs `setup` (views over the inputs, say), then `copy` (a COPY ... TO), in a fresh in-memory
 * DuckDB: the rows the COPY wrote. The COPY is interrupted when over time.
 */
export async function bareDuckDbCopy(setup: readonly string[], copy: string): Promise<number> {
  // Loaded on first use, so that bench sections without DuckDB do not load its native library.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    try {
      for (const statement of setup) await connection.run(statement);
      return (await withTimeout(connection.run(copy), COPY_MS, 'DuckDB COPY', () => connection.interrupt()))
        .rowsChanged;
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/** Runs `setup`, then each of `queries` to its last row, in a fresh in-memory DuckDB with its defaults. */
export async function bareDuckDbQueries(setup: readonly string[], queries: readonly string[]): Promise<void> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    try {
      for (const statement of setup) await connection.run(statement);
      for (const query of queries)
        await withTimeout(connection.runAndReadAll(query), COPY_MS, 'DuckDB query', () => connection.interrupt());
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}
