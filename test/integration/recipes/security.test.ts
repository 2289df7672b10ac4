/**
 * Recipes and tenants: every recipe route wants a token (10-401) and its permission (10-403),
 * and another tenant's recipe reads as missing (20-1044) on every route that names one,
 * changing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../../functions/routes';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { JOIN_CODE, createRecipe, recipeId, recipeRequest, type Recipe } from './fixtures';

let env: TestTwin;
let owner: ApiClient;
let intruder: ApiClient;
let viewer: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  owner = await env.clientFor('recipe-owner', ['editor']);
  intruder = await env.clientFor('recipe-intruder', ['admin']);
  viewer = await env.clientFor('recipe-owner', ['viewer']);
});
afterAll(() => env?.close());

const recipeRoutes = routes.filter((route) => route.tag === 'recipes');
const path = (template: string, id: number) =>
  template.replace('{recipe_id}', String(id)).replace('{version_number}', '1');

/** A request to each recipe route that would pass validation for the owner of `recipe`. */
function bodyFor(operationId: string, recipe: Recipe): unknown {
  switch (operationId) {
    case 'createRecipe':
      return recipeRequest();
    case 'updateRecipe':
      return { ...recipe, description: 'changed by someone' };
    case 'mergeRecipe':
      return { id: recipe.id, lock_version: recipe.lock_version, description: 'patched by someone' };
    case 'createRecipeVersion':
      return { code: 'SELECT 1 AS one FROM orders' };
    case 'updateRecipeVersion':
      return { lock_version: recipe.latest_version.lock_version, code: 'SELECT 2 AS two FROM orders' };
    case 'analyzeRecipe':
      return { code: JOIN_CODE, aliases: ['orders', 'customers'] };
    default:
      return undefined;
  }
}

/** Every route is walked from the route table, so the requests go out raw; answers are read as problems. */
const send = (client: ApiClient, route: (typeof recipeRoutes)[number], recipe: Recipe) =>
  client.raw(route.method, path(route.path, recipe.id), {
    body: bodyFor(route.operationId, recipe),
    contentType: route.method === 'PATCH' ? 'application/merge-patch+json' : undefined,
  });

/** What the owner reads of the recipe: the recipe and its versions. */
async function ownersView(recipe: Recipe) {
  const params = recipeId(recipe.id);
  return {
    recipe: (await owner.call('getRecipe', { params })).body,
    versions: (await owner.call('listRecipeVersions', { params })).body,
  };
}

describe('authentication and permissions', () => {
  it('answers 10-401 without a token on every recipe route', async () => {
    const recipe = await createRecipe(owner);
    expect(recipeRoutes.length).toBeGreaterThanOrEqual(12);
    for (const route of recipeRoutes) {
      const response = await send(env.anonymous, route, recipe);
      expect(response.status, route.operationId).toBe(401);
      expect(response.problem).toMatchObject({ code: '10-401', extraDetails: { reason: 'missing_token' } });
    }
  });

  it('lets a viewer read but not write (10-403), and changes nothing', async () => {
    const recipe = await createRecipe(owner);
    const before = await ownersView(recipe);
    for (const route of recipeRoutes) {
      const response = await send(viewer, route, recipe);
      if (route.method === 'GET') {
        expect(response.status, route.operationId).toBe(200);
      } else {
        expect(response.status, route.operationId).toBe(403);
        expect(response.problem).toMatchObject({ code: '10-403', extraDetails: { required_permission: 'data:write' } });
      }
    }
    expect(await ownersView(recipe)).toEqual(before);
  });
});

describe('tenant isolation', () => {
  it('answers 20-1044 to another tenant on every route that names a recipe, and changes nothing', async () => {
    const recipe = await createRecipe(owner);
    await owner.call('createRecipeVersion', {
      params: recipeId(recipe.id),
      body: { code: 'SELECT 9 AS nine FROM orders' },
    });
    const before = await ownersView(recipe);
    const named = recipeRoutes.filter((route) => route.path.includes('{recipe_id}'));
    expect(named.length).toBeGreaterThanOrEqual(10);
    // A tenant with no recipes: to it, the owner's recipe does not exist.
    const other = await env.clientFor('recipe-other', ['admin']);
    for (const route of named) {
      const response = await send(other, route, recipe);
      expect(response.status, route.operationId).toBe(404);
      expect(response.problem, route.operationId).toMatchObject({
        code: '20-1044',
        detail: `Recipe with ID ${recipe.id} not found`,
      });
    }
    expect(await ownersView(recipe)).toEqual(before);
    expect((await other.call('listRecipes')).body).toEqual({
      items: [],
      total_count: 0,
      page_size: 1000,
      page_number: 0,
    });
  });

  it('reads and writes only the caller’s own recipe when another tenant has the same id', async () => {
    const mine = await createRecipe(owner, { aliases: ['orders', 'customers'], recipe_version: { code: JOIN_CODE } });
    let theirs = await createRecipe(intruder);
    while (theirs.id < mine.id) theirs = await createRecipe(intruder);
    expect(theirs.id).toBe(mine.id);
    const before = await ownersView(mine);
    const params = recipeId(theirs.id);
    expect((await intruder.call('getRecipe', { params })).body).toEqual(theirs);
    expect(
      (await intruder.call('createRecipeVersion', { params, body: { code: 'SELECT 3 AS three FROM orders' } })).body
        .version_number,
    ).toBe(2);
    expect((await intruder.call('deleteRecipe', { params })).status).toBe(204);
    expect(await ownersView(mine)).toEqual(before);
    expect((await owner.call('listRecipes', { query: { filter: `id eq ${mine.id}` } })).body.items).toEqual([
      before.recipe,
    ]);
  });
});
