import { quotedIdentifier, type DuckDBConnection } from '@duckdb/node-api';
import { AppError, validationError } from '../errors/app-error';
import { withSandboxedDuckDb } from './duckdb';
import { shortCause } from './engine-errors';
import { analyseRecipeSql, type RecipeSqlAnalysis } from './recipe-sql';
import { serializeSql } from './recipe-sql-parse';
import type { Json } from './recipe-sql-tree';

/**
 * The columns a recipe would produce, before it is saved or run: the code is analysed, then
 * DuckDB binds it over empty tables typed as the caller describes each alias, in a sandboxed
 * engine of its own (nothing of one caller's tables is ever seen by another). Binding
 * resolves every name and type without reading a row.
 */

export interface AliasColumn {
  readonly name: string;
  /** A DuckDB type: VARCHAR, BIGINT, DECIMAL(18,3), TIMESTAMP WITH TIME ZONE, VARCHAR[], STRUCT(a INTEGER)... */
  readonly type: string;
}

/** One alias of the recipe with the columns of the table it stands for. */
export interface AliasColumns {
  readonly alias: string;
  readonly columns: readonly AliasColumn[];
}

export interface OutputColumn {
  readonly name: string;
  readonly type: string;
}

export interface RecipeSqlDescription extends RecipeSqlAnalysis {
  /** The query's result columns, in order, with DuckDB's type names. */
  readonly columns: OutputColumn[];
}

/**
 * Analyses `code` with the aliases of `tables` (every rule of analyseRecipeSql), then answers
 * its output columns. A column type that is not one DuckDB type answers 10-1400 naming
 * `tables.<alias>.<column>`; a query DuckDB cannot bind over these columns (an unknown
 * column, a type mismatch, an aggregate misused) answers 40-50001 with DuckDB's message.
 */
export async function describeRecipeOutput(
  code: string | null | undefined,
  tables: readonly AliasColumns[],
): Promise<RecipeSqlDescription> {
  const analysis = await analyseRecipeSql(
    code,
    tables.map((table) => table.alias),
  );
  const definitions = await Promise.all(tables.map(tableDefinition));
  const columns = await withSandboxedDuckDb({}, async (connection) => {
    for (const [index, definition] of definitions.entries()) await createTable(connection, tables[index]!, definition);
    return outputColumns(connection, code!);
  });
  return { ...analysis, columns };
}

const fieldOf = (table: AliasColumns, column?: AliasColumn) =>
  `tables.${table.alias}${column ? `.${column.name}` : ''}`;

const TYPE_RULE =
  'must be one DuckDB type, such as VARCHAR, BIGINT, DECIMAL(18,3), TIMESTAMP WITH TIME ZONE, VARCHAR[] or STRUCT(a INTEGER)';
/** What a type never holds: statement ends, comments, control characters. */
const NOT_IN_TYPE = /[;\u0000-\u001f\u007f]|--|\/\*/;

/** CREATE TABLE's column list, each type checked by DuckDB's parser to be one type and nothing else. */
async function tableDefinition(table: AliasColumns): Promise<string> {
  if (table.columns.length === 0) throw validationError({ [fieldOf(table)]: 'must have at least one column' });
  const columns: string[] = [];
  for (const column of table.columns) {
    if (column.name === '' || /[\u0000-\u001f\u007f]/.test(column.name))
      throw validationError({ [fieldOf(table, column)]: 'must be a non-empty name without control characters' });
    if (NOT_IN_TYPE.test(column.type) || !(await isOneType(column.type)))
      throw validationError({ [fieldOf(table, column)]: TYPE_RULE });
    columns.push(`${quotedIdentifier(column.name)} ${column.type}`);
  }
  return columns.join(', ');
}

/** `SELECT CAST(NULL AS <type>)` parses to exactly that: the text is a type, not more SQL. */
async function isOneType(type: string): Promise<boolean> {
  const parsed = await serializeSql(`SELECT CAST(NULL AS ${type})`);
  if (parsed.error || parsed.statements.length !== 1) return false;
  const node = field(parsed.statements[0], 'node');
  const selectList = field(node, 'select_list');
  const only = Array.isArray(selectList) && selectList.length === 1 ? (selectList[0] as Json) : null;
  return (
    field(node, 'type') === 'SELECT_NODE' &&
    field(field(node, 'from_table'), 'type') === 'EMPTY' &&
    field(node, 'where_clause') === null &&
    field(node, 'having') === null &&
    field(node, 'qualify') === null &&
    isEmptyList(field(node, 'group_expressions')) &&
    isEmptyList(field(node, 'modifiers')) &&
    isEmptyList(field(field(node, 'cte_map'), 'map')) &&
    field(only, 'class') === 'CAST' &&
    field(field(only, 'child'), 'class') === 'CONSTANT'
  );
}

const isEmptyList = (value: Json | undefined): boolean => Array.isArray(value) && value.length === 0;

function field(value: Json | undefined, key: string): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, Json>)[key]
    : undefined;
}

async function createTable(connection: DuckDBConnection, table: AliasColumns, definition: string): Promise<void> {
  try {
    await connection.run(`CREATE TABLE ${quotedIdentifier(table.alias)} (${definition})`);
  } catch (error) {
    // A type DuckDB does not know, or two columns of one name.
    throw validationError({
      [fieldOf(table)]: `cannot be created: ${shortCause(error instanceof Error ? error.message : String(error))}`,
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
