import type { RecipeLanguage } from '../model/recipe';
import {
  runRecipeSql,
  type RecipeFolders,
  type RecipeRunOptions,
  type RecipeRunResult,
  type RecipeSource,
} from './recipe-run';

/**
 * The seam for a second engine (docs/scale.md): what runs a recipe's code over its bound
 * sources and writes `<outDir>/data.parquet`. A recipe's language names its dialect, and so
 * the engine that runs it; DuckDB in the worker is the one built. A distributed backend
 * (Athena for a `trino` language, say) implements the same call over the same Parquet
 * inputs and answers the same result (the output's analysis included), so the recipe-run
 * worker does not change.
 */
export interface RecipeEngine {
  /**
   * `sources` may still be arriving (the worker downloads them meanwhile): an engine can start
   * before they are there. If they fail, the run fails with their error.
   */
  run(
    code: string,
    sources: Promise<readonly RecipeSource[]>,
    folders: RecipeFolders,
    options: RecipeRunOptions,
  ): Promise<RecipeRunResult>;
}

const ENGINES: Readonly<Record<RecipeLanguage, RecipeEngine>> = {
  'duckdb-sql': { run: runRecipeSql },
};

/** The engine that runs recipes written in `language`. */
export function recipeEngineFor(language: RecipeLanguage): RecipeEngine {
  return ENGINES[language];
}
