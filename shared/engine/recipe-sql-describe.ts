import { quotedIdentifier } from '@duckdb/node-api';
import { AppError, validationError } from '../errors/app-error';
import { EngineProcessStopped, runInEngineProcess } from './isolation/engine-process';
import { SlotWaitExpired } from './isolation/slots';
import type { OutputColumn } from './recipe-sql-bind';
import { analyseRecipeSql, type RecipeSqlAnalysis } from './recipe-sql';
import { serializeSql } from './recipe-sql-parse';
import type { Json } from './recipe-sql-tree';

/**
 * The columns a recipe would produce, before it is saved or run: the code is analysed, then
 * DuckDB binds it over empty tables typed as the caller describes each alias, in a sandboxed
 * engine in an engine process (recipe-sql-bind.ts), within ANALYSER_PROCESS's memory and time.
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

/** The request the analysis answers: when its time is up, and the signal that says so. */
export interface AnalysisRequest {
  /** Aborts when the request's time is up: the engine process is stopped. */
  readonly signal?: AbortSignal;
  /** When `signal` aborts, as Date.now() time. */
  readonly deadline?: number;
}

/**
 * Analyses `code` with the aliases of `tables` (every rule of analyseRecipeSql), then answers
 * its output columns. A column type that is not one DuckDB type answers 10-1400 naming
 * `tables.<alias>.<column>`; a query DuckDB cannot bind over these columns (an unknown
 * column, a type mismatch, an aggregate misused) answers 40-50001 with DuckDB's message; one
 * whose binding needs more than ANALYSER_PROCESS answers 40-50003. While every engine slot is
 * taken the analysis waits only as long as it can still bind and answer before the request's
 * deadline, then answers 50-1012 with a Retry-After. When `signal` aborts (the request's time
 * is up), the engine process is stopped and the signal's reason thrown.
 */
export async function describeRecipeOutput(
  code: string | null | undefined,
  tables: readonly AliasColumns[],
  { signal, deadline = Infinity }: AnalysisRequest = {},
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
  const maxWaitMs = deadline - Date.now() - ANALYSER_PROCESS.timeoutMs - ANSWER_MARGIN_MS;
  try {
    const { result } = await runInEngineProcess('describe', input, { ...ANALYSER_PROCESS, signal, maxWaitMs });
    return { ...analysis, columns: result };
  } catch (error) {
    if (error instanceof SlotWaitExpired) throw everyEngineBusy();
    throw error instanceof EngineProcessStopped ? beyondBounds(error) : error;
  }
}

/** What an answer needs after the engine process ends: its result back, the response written. */
const ANSWER_MARGIN_MS = 1000;

/**
 * Every engine slot stayed taken (the twin: one process serves every request and run) until
 * the analysis could no longer finish in the request's time: the service, not the code, is
 * short, so 50-1012 (docs/decisions.md). An analysis holds a slot for ANALYSER_PROCESS's time
 * at most, hence the Retry-After.
 */
function everyEngineBusy(): AppError {
  return new AppError('50-1012', {
    extraDetails: {
      cause: 'every SQL engine stayed busy for as long as the request could wait; retry later',
      retry_after_seconds: ANALYSER_PROCESS.timeoutMs / 1000,
    },
  });
}

/**
 * The analyzer's process: DuckDB's own 256 MB (limits.ts) plus the process's (Node and
 * DuckDB loaded: about 150 MB), with room for what binding allocates outside DuckDB's
 * buffer manager; a few seconds, where a real recipe binds in milliseconds.
 */
export const ANALYSER_PROCESS = { memoryMb: 768, timeoutMs: 5000 } as const;

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
