import { AppError } from '../errors/app-error';
import type { RecipeLanguage } from '../model/recipe';
import { EngineProcessStopped, runInEngineProcess } from './isolation/engine-process';
import type { RecipeFolders, RecipeRunEvent, RecipeRunOptions, RecipeRunResult, RecipeSource } from './recipe-run';

/**
 * The seam for a second engine (docs/scale.md): what runs a recipe's code over its bound
 * sources and writes `<outDir>/data.parquet`. A recipe's language names its dialect, and so
 * the engine that runs it; DuckDB in an engine process of the worker is the one built. A
 * distributed backend (Athena for a `trino` language, say) implements the same call over the
 * same Parquet inputs and answers the same result (the output's analysis included), so the
 * recipe-run worker does not change.
 */
export interface RecipeEngine {
  /**
   * `sources` may still be arriving (the worker downloads them meanwhile). If they fail, the
   * run fails with their error.
   */
  run(
    code: string,
    sources: Promise<readonly RecipeSource[]>,
    folders: RecipeFolders,
    options: RecipeEngineOptions,
  ): Promise<RecipeEngineResult>;
}

/** How a run is bounded besides what it writes. */
export interface RecipeEngineOptions extends RecipeRunOptions {
  /** The engine is stopped past this memory or time, and the run fails saying which. */
  readonly limits: { readonly memoryMb: number; readonly timeoutMs: number };
  /** The run is no longer wanted (its job failed, was aborted or superseded): the engine stops. */
  readonly signal?: AbortSignal;
}

export interface RecipeEngineResult extends RecipeRunResult {
  /** CPU the engine spent outside the worker's own process. */
  readonly engineCpuSeconds: number;
}

/**
 * DuckDB in an engine process (isolation/engine-process.ts): a query that needs more memory
 * than the run has, even outside DuckDB's buffer manager, or runs past its time, stops there,
 * and the worker records why.
 */
async function runInDuckDbProcess(
  code: string,
  sources: Promise<readonly RecipeSource[]>,
  folders: RecipeFolders,
  options: RecipeEngineOptions,
): Promise<RecipeEngineResult> {
  // The engine process is taken (or started) while the sources download: its start is not added to the run's time.
  const input = sources.then((ready) => ({
    code,
    sources: ready,
    folders,
    previewRows: options.previewRows,
    analysisDepth: options.analysisDepth,
    memoryMb: options.limits.memoryMb,
  }));
  const onEvent = (event: RecipeRunEvent) => {
    if (event.kind === 'data') options.onData?.(event.dataPath);
    else options.onDescribed?.({ columns: event.columns, previewRows: event.previewRows });
  };
  try {
    const { result, cpuSeconds } = await runInEngineProcess(
      'recipe-run',
      input,
      { ...options.limits, signal: options.signal },
      onEvent,
    );
    return { ...result, engineCpuSeconds: cpuSeconds };
  } catch (error) {
    throw error instanceof EngineProcessStopped ? runStopped(error) : error;
  }
}

/** The run's failure when its engine was stopped, saying which bound it reached. */
function runStopped({ reason, limits }: EngineProcessStopped): AppError {
  if (reason === 'time') {
    const message = `The run stopped at its time limit: the recipe ran for more than ${limits.timeoutMs / 1000} s`;
    return new AppError('10-1047', { message, extraDetails: { cause: 'time limit' } });
  }
  if (reason === 'memory') {
    const message = `The run stopped: the recipe needed more than the ${limits.memoryMb} MB of memory a run has`;
    return new AppError('10-500', { message, extraDetails: { cause: 'memory limit' } });
  }
  return new AppError('10-500', { message: 'The run stopped: its engine ended unexpectedly' });
}

/** The languages whose engine runs inside the worker; trino-sql runs on Athena (engine/athena/engine.ts, chosen in datasets/recipe-node-build.ts). */
const ENGINES: Readonly<Partial<Record<RecipeLanguage, RecipeEngine>>> = {
  'duckdb-sql': { run: runInDuckDbProcess },
};

/** The engine that runs recipes written in `language` inside the worker: 20-1010 for a language that does not run there. */
export function recipeEngineFor(language: RecipeLanguage): RecipeEngine {
  const engine = ENGINES[language];
  if (!engine)
    throw new AppError('20-1010', { extraDetails: { language: `${language} recipes do not run in the worker` } });
  return engine;
}
