/**
 * Requests and helpers shared by the recipe tests. Code and aliases always agree (every alias
 * read, no other table), so the SQL analyzer lets them through unless a test means otherwise.
 */
import { asBody, type ApiClient, type RequestBody, type ResponseBody } from '../../support/api-client';

export type Recipe = ResponseBody<'getRecipe'>;
export type RecipeVersion = ResponseBody<'getRecipeVersion'>;

let counter = 0;
/** A name no other test uses. */
export const uniqueName = (prefix = 'recipe') => `${prefix} ${process.pid}-${++counter}`;

/** A single-source recipe over `orders`. */
export function recipeRequest(changes: Partial<RequestBody<'createRecipe'>> = {}): RequestBody<'createRecipe'> {
  return {
    name: uniqueName(),
    aliases: ['orders'],
    recipe_version: { code: 'SELECT id, amount FROM orders WHERE amount > 0' },
    ...changes,
  };
}

/** A two-source recipe joining `orders` and `customers`. */
export const JOIN_CODE = 'SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id';

export async function createRecipe(
  api: ApiClient,
  changes: Partial<RequestBody<'createRecipe'>> = {},
): Promise<Recipe> {
  return (await api.call('createRecipe', { body: recipeRequest(changes) })).body;
}

/** The recipe as read, sent back as a full update with `changes`; checked to be a valid update. */
export const sentBack = (recipe: Recipe, changes: Partial<RequestBody<'updateRecipe'>> = {}) =>
  asBody('updateRecipe', { ...recipe, ...changes });

/** The version as read, sent back as an update of its code with `changes`. */
export const versionSentBack = (version: RecipeVersion, changes: Partial<RequestBody<'updateRecipeVersion'>> = {}) =>
  asBody('updateRecipeVersion', { ...version, ...changes });

export const recipeId = (id: number) => ({ recipe_id: id });
export const versionOf = (id: number, versionNumber: number) => ({ recipe_id: id, version_number: versionNumber });
