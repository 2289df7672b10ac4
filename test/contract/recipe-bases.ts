/**
 * The valid requests of the recipe operations (docs/recipes.md), apart from
 * test/contract/corpus.ts to keep each module small: the fixture recipe and its version 1, and a
 * spare recipe to delete.
 */
import type { OperationId } from '../../functions/routes';
import { AUDIT_MEMBERS, echo, lockOf, type Base } from './request-base';
import type { JsonValue } from './variations';

/** What the recipe requests aim at. */
export interface RecipeFixtures {
  /** A recipe with version 1. */
  readonly recipeId: number;
  readonly spare: { readonly recipeId: number };
  readonly current: { readonly recipe: JsonValue };
}

/** The valid request of each recipe operation. */
export function recipeBases(f: RecipeFixtures): Partial<Readonly<Record<OperationId, Base>>> {
  const recipeId = { recipe_id: String(f.recipeId) };
  const recipeVersion = { ...recipeId, version_number: '1' };
  const recipe = {
    name: 'contract recipe',
    description: null,
    tags: ['r'],
    shared: true,
    language: 'duckdb-sql',
    aliases: ['CurrentTable'],
  };
  return {
    createRecipe: {
      body: { ...recipe, recipe_version: { code: 'SELECT * FROM CurrentTable' } },
      bodies: {
        'alias select': { ...recipe, aliases: ['select'] },
        'alias of 64 characters': { ...recipe, aliases: ['a'.repeat(64)] },
      },
    },
    listRecipes: { query: { limit: '5' } },
    getRecipe: { params: recipeId },
    updateRecipe: { params: recipeId, body: echo(f.current.recipe, ...AUDIT_MEMBERS, 'latest_version') },
    mergeRecipe: {
      params: recipeId,
      body: { id: f.recipeId, lock_version: lockOf(f.current.recipe), description: 'merged', tags: ['m'] },
      mediaType: 'application/merge-patch+json',
    },
    deleteRecipe: { params: { recipe_id: String(f.spare.recipeId) } },
    createRecipeVersion: {
      params: recipeId,
      body: { code: 'SELECT 1 AS one FROM CurrentTable', aliases: ['CurrentTable'] },
    },
    listRecipeVersions: { params: recipeId },
    getRecipeVersion: { params: recipeVersion },
    updateRecipeVersion: {
      params: recipeVersion,
      body: { lock_version: 0, code: 'SELECT 2 AS two FROM CurrentTable', aliases: ['CurrentTable'] },
    },
    getRecipeVersionCode: { params: recipeVersion },
    analyzeRecipe: {
      body: { code: 'SELECT a FROM t', aliases: ['t'], tables: { t: [{ name: 'a', type: 'INTEGER' }] } },
    },
    listRecipeVersionUsages: { params: recipeVersion },
  };
}
