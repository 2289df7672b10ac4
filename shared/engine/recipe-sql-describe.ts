import { quotedIdentifier } from '@duckdb/node-api';
import { AppError, validationError } from '../errors/app-error';
import { EngineProcessStopped, runInEngineProcess } from './isolation/engine-process';
import type { OutputColumn } from './recipe-sql-bind';
import { analyseRecipeSql, type RecipeSqlAnalysis } from './recipe-sql';
import { serializeSql } from './recipe-sql-parse';
import type { Json } from './recipe-sql-tree';

/**
 * The columns a recipe would produce, before it is saved or run: the code is analysed, then
 * DuckDB binds it over empty tables typed as the caller describes each alias, in a sandboxed
 * engine in an engine process (recipe-sql-bind.ts), within ANALYZER_PROCESS's memory and time.
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

export type { OutputColumn } from './recipe-sql-bind';

export interface RecipeSqlDescription extends RecipeSqlAnalysis {
  /** The query's result columns, in order, with DuckDB's type names. */
  readonly columns: OutputColumn[];
}

/**
 * Analyses `code` with the aliases of `tables` (every rule of analyseRecipeSql), then answers
 * its output columns. A column type that is not one DuckDB type answers 10-1400 naming
 * `tables.<alias>.<column>`; a query DuckDB cannot bind over these columns (an unknown
 * column, a type mismatch, an aggregate misused) answers 40-50001 with DuckDB's message; one
 * whose binding needs more than ANALYZER_PROCESS answers 40-50003. When `signal` aborts (the
 * request's time is up), the engine process is stopped and the signal's reason thrown.
 */
export async function describeRecipeOutput(
  code: string | null | undefined,
  tables: readonly AliasColumns[],
  signal?: AbortSignal,
): Promise<RecipeSqlDescription> {
  const analysis = await analyseRecipeSql(
    code,
    tables.map((table) => table.alias),
  );
  const definitions = await Promise.all(tables.map(tableDefinition));
  const input = {
    code: code!,
    tables: tables.map((table, index) => ({ alias: table.alias, definition: definitions[index]! })),
  };
  try {
    const { result } = await runInEngineProcess('describe', input, { ...ANALYZER_PROCESS, signal });
    return { ...analysis, columns: result };
  } catch (error) {
    throw error instanceof EngineProcessStopped ? beyondBounds(error) : error;
  }
}

/**
 * The analyzer's process: DuckDB's own 256 MB (limits.ts) plus the process's (Node and
 * DuckDB loaded: about 150 MB), with room for what binding allocates outside DuckDB's
 * buffer manager; a few seconds, where a real recipe binds in milliseconds.
 */
export const ANALYZER_PROCESS = { memoryMb: 768, timeoutMs: 5000 } as const;

/** The code asked more of the analyzer than it gives: its constant expressions are the cause (40-50003). */
function beyondBounds(stopped: EngineProcessStopped): AppError {
  const bound =
    stopped.reason === 'memory'
      ? `more than ${stopped.limits.memoryMb} MB of memory`
      : stopped.reason === 'time'
        ? `more than ${stopped.limits.timeoutMs / 1000} s`
        : 'more than the analyzer could give before it stopped';
  const cause = `binding the query took ${bound}: DuckDB evaluates constant expressions (such as repeat, range or list_resize over large constants) while it binds`;
  return new AppError('40-50003', { extraDetails: { cause } });
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
