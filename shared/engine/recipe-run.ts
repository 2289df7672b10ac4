import { join } from 'node:path';
import { quotedIdentifier, type DuckDBConnection } from '@duckdb/node-api';
import { AppError, isAppError } from '../errors/app-error';
import type { ErrorCode } from '../errors/catalogue';
import { logger } from '../log';
import type { ColumnSchema, DataRow, SchemaAnalysisDepth, SchemaAnalysisResult } from '../model/columns';
import { createSandboxedDuckDb, withEngine } from './duckdb';
import { engineError, redactPaths, shortCause, type PathName } from './engine-errors';
import { engineBudget } from './limits';
import { copyToParquet, describeParquet, parquetSource } from './parquet';
import { analyseParquetWith } from './schema-analysis';
import { readJsonSafeRows } from './values';

/**
 * Runs a recipe's SQL over its sources in the sandboxed engine (duckdb.ts): each alias is a
 * view over its source's Parquet file, and the query's rows are written to
 * `<outDir>/data.parquet`, then analysed in the same engine (schema-analysis.ts; one engine
 * per run, not two). The engine may read and write only the input and output folders, and the
 * code was checked by the analyzer when it was stored (recipe-sql.ts), so the run answers the
 * same query the analyzer read.
 *
 * Failures at run time, mapped to catalogue codes (docs/recipe-runs.md):
 * - a column the code names is not in its source (the source changed): 20-1031 naming it;
 * - any other binding or catalog error of the code: 40-50001, with DuckDB's reason;
 * - a value that cannot be converted or is out of range for the query: 10-1002;
 * - anything else (memory, I/O, the engine itself): 10-500, without its internals.
 */

export interface RecipeSource {
  readonly alias: string;
  /** A local Parquet file inside `inDir`. */
  readonly path: string;
}

export interface RecipeRunResult {
  readonly rowCount: number;
  readonly columns: ColumnSchema[];
  readonly dataPath: string;
  readonly previewRows: DataRow[];
  /** The output's schema analysis at the depth asked. */
  readonly analysis: SchemaAnalysisResult;
}

/** The run's folders: its sources' (read only), its output's, and where the engine spills (neither readable nor writable by the code). */
export interface RecipeFolders {
  readonly inDir: string;
  readonly outDir: string;
  readonly spillDir: string;
}

/** What a run writes besides the data: how many preview rows, and how deep the output's analysis goes. */
export interface RecipeRunOptions {
  readonly previewRows: number;
  readonly analysisDepth: SchemaAnalysisDepth;
  /** The memory of the process the engine runs in (its engine process's): DuckDB's limits follow it (limits.ts). */
  readonly memoryMb?: number;
  /** Told the output's data file is complete, before it is described and analysed: the worker uploads it meanwhile. */
  readonly onData?: (dataPath: string) => void;
  /** Told the output's columns and preview, before it is analysed: the worker uploads them meanwhile. */
  readonly onDescribed?: (description: Pick<RecipeRunResult, 'columns' | 'previewRows'>) => void;
}

/** The view the code is bound to: a name no alias or CTE can have (they are plain identifiers). */
const OUTPUT_VIEW = quotedIdentifier('recipe output');

/**
 * Runs `code` over `sources`. The sandboxed engine starts at once, while the sources may still
 * be downloading (the worker passes their promise): its start is not added to the run's time.
 * A source that cannot be had fails the run with its own error, and the engine is closed.
 */
export async function runRecipeSql(
  code: string,
  sources: Promise<readonly RecipeSource[]>,
  folders: RecipeFolders,
  options: RecipeRunOptions,
): Promise<RecipeRunResult> {
  const dataPath = join(folders.outDir, 'data.parquet');
  const sandbox = {
    directories: [folders.inDir, folders.outDir],
    budget: engineBudget('recipe-run', options.memoryMb),
    spillDirectory: folders.spillDir,
  };
  const engine = createSandboxedDuckDb(sandbox);
  // A handler from the start: an engine that fails while the sources download is awaited below, not an unhandled rejection.
  const engineOrNone = engine.catch(() => undefined);
  let ready: readonly RecipeSource[];
  try {
    ready = await sources;
  } catch (error) {
    (await engineOrNone)?.closeSync();
    throw error;
  }
  const known: PathName[] = [
    ...ready.map((source) => ({ path: source.path, name: source.alias })),
    { path: folders.outDir, name: 'output' },
    { path: folders.inDir, name: 'input' },
  ];
  try {
    return await withEngine(await engine, async (connection) => {
      for (const source of ready)
        await connection.run(
          `CREATE VIEW ${quotedIdentifier(source.alias)} AS SELECT * FROM ${parquetSource(source.path)}`,
        );
      // A view takes the code as written (a trailing semicolon or comment included) and is bound here, before any row is read.
      await connection.run(`CREATE VIEW ${OUTPUT_VIEW} AS\n${code}\n`);
      const rowCount = await copyToParquet(connection, `SELECT * FROM ${OUTPUT_VIEW}`, dataPath);
      options.onData?.(dataPath);
      const { columns, previewRows } = await describeOutput(connection, dataPath, options.previewRows);
      options.onDescribed?.({ columns, previewRows });
      const analysis = await analyseParquetWith(connection, dataPath, options.analysisDepth, { columns, rowCount });
      return { rowCount, dataPath, columns, previewRows, analysis };
    });
  } catch (error) {
    throw isAppError(error) ? error : runFailure(error, known);
  }
}

/** A recipe run as an engine process runs it (isolation/tasks.ts): its sources are there. */
export interface RecipeRunInput extends Pick<RecipeRunOptions, 'previewRows' | 'analysisDepth' | 'memoryMb'> {
  readonly code: string;
  readonly sources: readonly RecipeSource[];
  readonly folders: RecipeFolders;
}

/** What a run tells while it goes on: its data file is complete, then its columns and preview are known. */
export type RecipeRunEvent =
  | { readonly kind: 'data'; readonly dataPath: string }
  | ({ readonly kind: 'described' } & Pick<RecipeRunResult, 'columns' | 'previewRows'>);

/** runRecipeSql in an engine process, its progress told as events to the parent. */
export function runRecipeTask(input: RecipeRunInput, emit: (event: RecipeRunEvent) => void): Promise<RecipeRunResult> {
  return runRecipeSql(input.code, Promise.resolve(input.sources), input.folders, {
    previewRows: input.previewRows,
    analysisDepth: input.analysisDepth,
    memoryMb: input.memoryMb,
    onData: (dataPath) => emit({ kind: 'data', dataPath }),
    onDescribed: (description) => emit({ kind: 'described', ...description }),
  });
}

async function describeOutput(
  connection: DuckDBConnection,
  dataPath: string,
  previewRows: number,
): Promise<Pick<RecipeRunResult, 'columns' | 'previewRows'>> {
  const columns = await describeParquet(connection, dataPath);
  return { columns, previewRows: await readJsonSafeRows(connection, parquetSource(dataPath), columns, previewRows) };
}

const DATA_ERRORS = /^(Conversion|Invalid Input|Out of Range) Error/;
const CODE_ERRORS = /^(Binder|Catalog|Parser) Error/;
/** DuckDB's two ways of saying a column is not there: unqualified, and qualified by its table. */
const MISSING_COLUMN = /Referenced column "([^"]+)" not found|does not have a column named "([^"]+)"/;

/** The AppError of a failed run: the user's SQL or data explains it, or it is 10-500 without details. */
export function runFailure(error: unknown, known: readonly PathName[]): AppError {
  const message = error instanceof Error ? error.message : String(error);
  const missing = MISSING_COLUMN.exec(message);
  const column = missing?.[1] ?? missing?.[2];
  const cause = shortCause(redactPaths(message, known));
  if (column !== undefined) return new AppError('20-1031', { params: [column], extraDetails: { cause }, cause: error });
  const code: ErrorCode | undefined = CODE_ERRORS.test(message)
    ? '40-50001'
    : DATA_ERRORS.test(message)
      ? '10-1002'
      : undefined;
  if (code) return engineError(code, undefined, cause, error);
  // The user is told nothing of the worker's internals (the job's error has no cause); the log keeps them.
  logger.error('recipe run failed in the engine', { error: error instanceof Error ? error : new Error(message) });
  return new AppError('10-500');
}
