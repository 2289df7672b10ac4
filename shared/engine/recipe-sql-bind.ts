import { quotedIdentifier, type DuckDBConnection } from '@duckdb/node-api';
import { AppError, validationError } from '../errors/app-error';
import { withSandboxedDuckDb } from './duckdb';
import { shortCause } from './engine-errors';

/**
 * The analyzer's engine work, run in an engine process (isolation/engine-process.ts): the
 * recipe's code bound by DuckDB over empty tables, in a sandboxed engine of its own (nothing
 * of one caller's tables is ever seen by another). Binding resolves every name and type
 * without reading a row, but evaluates constant expressions, which is why it runs apart.
 */

/** One output column of a query, with DuckDB's type name. */
export interface OutputColumn {
  readonly name: string;
  readonly type: string;
}

/** An alias and its table's column list, as CREATE TABLE takes it (checked by the caller to be only that). */
export interface AliasDefinition {
  readonly alias: string;
  readonly definition: string;
}

export interface BindInput {
  readonly code: string;
  readonly tables: readonly AliasDefinition[];
}

/** The columns `code` produces over empty tables of `tables`: 10-1400 for a table DuckDB refuses, 40-50001 for code it cannot bind. */
export async function bindRecipeOutput(
  { code, tables }: BindInput,
  _emit: (event: never) => void,
): Promise<OutputColumn[]> {
  return withSandboxedDuckDb({}, async (connection) => {
    for (const table of tables) await createTable(connection, table);
    return outputColumns(connection, code);
  });
}

async function createTable(connection: DuckDBConnection, { alias, definition }: AliasDefinition): Promise<void> {
  try {
    await connection.run(`CREATE TABLE ${quotedIdentifier(alias)} (${definition})`);
  } catch (error) {
    // A type DuckDB does not know, or two columns of one name.
    throw validationError({
      [`tables.${alias}`]: `cannot be created: ${shortCause(error instanceof Error ? error.message : String(error))}`,
    });
  }
}

async function outputColumns(connection: DuckDBConnection, code: string): Promise<OutputColumn[]> {
  let prepared;
  try {
    prepared = await connection.prepare(code);
  } catch (error) {
    throw new AppError('40-50001', {
      extraDetails: { cause: shortCause(error instanceof Error ? error.message : String(error)) },
      cause: error,
    });
  }
  const columns: OutputColumn[] = [];
  for (let index = 0; index < prepared.columnCount; index++)
    columns.push({ name: prepared.columnName(index), type: prepared.columnType(index).toString() });
  prepared.destroySync();
  return columns;
}
