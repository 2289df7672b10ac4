/**
 * Recipes as resources (spec 2.7, 4.1): create with version 1, read, the recipes list
 * envelope, full update, merge patch and delete, with optimistic locking (10-1006), unique
 * names (10-409), the id mismatch (20-1011) and the recipe's own not-found code (20-1044).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeVersions } from '../../../shared/recipes/versions';
import { unchecked, type ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { JOIN_CODE, createRecipe, recipeId, recipeRequest, sentBack, uniqueName, versionOf } from './fixtures';

let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  api = env.admin;
});
afterAll(() => env?.close());

const read = (id: number) => api.call('getRecipe', { params: recipeId(id) });
const missing = (id: number) => ({ code: '20-1044', status: 404, detail: `Recipe with ID ${id} not found` });

describe('create', () => {
  it('creates a recipe with its version 1, shared and in DuckDB SQL unless told otherwise', async () => {
    const body = recipeRequest({ description: 'positive orders', tags: ['sales'] });
    const response = await api.call('createRecipe', { body });
    expect(response.status).toBe(201);
    const recipe = response.body;
    expect(response.headers.get('location')).toBe(`/api/data/v1/recipes/${recipe.id}`);
    expect(recipe).toMatchObject({
      name: body.name,
      description: 'positive orders',
      tags: ['sales'],
      shared: true,
      language: 'duckdb-sql',
      lock_version: 0,
      latest_version: {
        recipe_id: recipe.id,
        version_number: 1,
        code: body.recipe_version.code,
        aliases: ['orders'],
        is_locked: false,
        lock_version: 0,
      },
    });
    expect((await read(recipe.id)).body).toEqual(recipe);
    expect((await api.call('getRecipeVersion', { params: versionOf(recipe.id, 1) })).body).toEqual(
      recipe.latest_version,
    );
  });

  it('keeps shared false and the language named, and clears nothing it was not given', async () => {
    const recipe = await createRecipe(api, {
      shared: false,
      language: 'duckdb-sql',
      aliases: ['orders', 'customers'],
      recipe_version: { code: JOIN_CODE },
    });
    expect(recipe).toMatchObject({
      shared: false,
      language: 'duckdb-sql',
      description: null,
      tags: null,
      latest_version: { aliases: ['orders', 'customers'] },
    });
  });

  it('refuses a second recipe of the same name, ignoring case (10-409), and creates nothing', async () => {
    const name = uniqueName('Twin');
    await createRecipe(api, { name });
    const again = await api.call('createRecipe', { body: recipeRequest({ name: `  ${name.toUpperCase()} ` }) });
    expect(again.status).toBe(409);
    expect(again.problem).toMatchObject({
      code: '10-409',
      detail: 'Entity recipe with the same unique field name already exists',
    });
    const named = (await api.call('listRecipes', { query: { filter: `name eq '${name}'` } })).body;
    expect(named.total_count).toBe(1);
  });

  it('answers a retry with the same Idempotency-Key with the recipe it created', async () => {
    const body = recipeRequest();
    const headers = { 'idempotency-key': `recipe-create-${process.pid}` };
    const first = await api.call('createRecipe', { body, headers });
    const retry = await api.call('createRecipe', { body, headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    const other = await api.call('createRecipe', { body: { ...body, name: uniqueName() }, headers });
    expect(other.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { 'Idempotency-Key': 'already used with a different request' },
    });
  });

  it('refuses a body that is not a recipe create request (10-1400 naming each field)', async () => {
    const response = await api.call('createRecipe', {
      body: unchecked({ name: '', aliases: 'orders', shared: 'yes', recipe_version: { code: 1 }, bogus: true }),
    });
    expect(response.problem).toMatchObject({
      code: '10-1400',
      extraDetails: {
        name: 'must not be empty',
        aliases: 'must be an array',
        shared: 'must be true or false',
        'recipe_version.code': 'must be a string',
        bogus: 'is not a known field',
      },
    });
  });
});

describe('the recipes list', () => {
  it('answers the recipes envelope; page_size is the limit and page_number the zero-based page of the offset', async () => {
    const tag = uniqueName('page').replace(/\W/g, '_');
    const made = [];
    for (let index = 0; index < 5; index += 1) made.push(await createRecipe(api, { tags: [tag] }));
    const filter = `tags co '${tag}'`;
    const all = (await api.call('listRecipes', { query: { filter } })).body;
    expect(all).toEqual({ items: made, total_count: 5, page_size: 1000, page_number: 0 });
    const second = (await api.call('listRecipes', { query: { filter, offset: 2, limit: 2 } })).body;
    expect(second).toEqual({ items: made.slice(2, 4), total_count: 5, page_size: 2, page_number: 1 });
    const last = (await api.call('listRecipes', { query: { filter, offset: 4, limit: 2, sort: 'id' } })).body;
    expect(last).toEqual({ items: made.slice(4), total_count: 5, page_size: 2, page_number: 2 });
    // An offset between pages reports the page its first record is on.
    expect((await api.call('listRecipes', { query: { filter, offset: 3, limit: 2 } })).body).toMatchObject({
      items: made.slice(3, 5),
      page_number: 1,
    });
  });

  it('filters and sorts by the recipe fields, and shows each recipe’s latest version', async () => {
    const tag = uniqueName('fields').replace(/\W/g, '_');
    const older = await createRecipe(api, { tags: [tag], shared: false });
    const newer = await createRecipe(api, { tags: [tag] });
    await api.call('createRecipeVersion', {
      params: recipeId(newer.id),
      body: { code: 'SELECT 2 AS two FROM orders' },
    });
    const list = async (filter: string, sort?: string) =>
      (await api.call('listRecipes', { query: { filter: `tags co '${tag}' and (${filter})`, sort } })).body.items.map(
        (recipe) => recipe.id,
      );
    expect(await list('shared eq false')).toEqual([older.id]);
    expect(await list('latest_version_number eq 2')).toEqual([newer.id]);
    expect(await list("language eq 'duckdb-sql'", '-id')).toEqual([newer.id, older.id]);
    const listed = (await api.call('listRecipes', { query: { filter: `id eq ${newer.id}` } })).body.items[0];
    expect(listed?.latest_version).toMatchObject({ version_number: 2, code: 'SELECT 2 AS two FROM orders' });
    expect(listed).toEqual((await read(newer.id)).body);
    const bad = await api.call('listRecipes', { query: { filter: 'code eq 1' } });
    expect(bad.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { filter: expect.stringContaining("unknown field 'code'") },
    });
  });
});

describe('full update (PUT)', () => {
  it('replaces the recipe’s own fields, clears absent ones and leaves the versions', async () => {
    const oldName = uniqueName('old');
    const recipe = await createRecipe(api, { name: oldName, description: 'old', tags: ['a'], shared: false });
    const name = uniqueName('renamed');
    const response = await api.call('updateRecipe', {
      params: recipeId(recipe.id),
      body: { id: recipe.id, lock_version: 0, name },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name,
      description: null,
      tags: null,
      shared: true,
      language: 'duckdb-sql',
      lock_version: 1,
      latest_version: recipe.latest_version,
    });
    expect((await read(recipe.id)).body).toEqual(response.body);
    // The old name is free again.
    expect((await api.call('createRecipe', { body: recipeRequest({ name: oldName }) })).status).toBe(201);
  });

  it('accepts the recipe as read sent back, with its read-only fields', async () => {
    const recipe = await createRecipe(api);
    const response = await api.call('updateRecipe', {
      params: recipeId(recipe.id),
      body: sentBack(recipe, { description: 'sent back' }),
    });
    expect(response.body).toMatchObject({
      description: 'sent back',
      lock_version: 1,
      latest_version: recipe.latest_version,
    });
  });

  it('refuses a stale lock_version (10-1006), another id (20-1011), a taken name (10-409) and a missing recipe (20-1044)', async () => {
    const recipe = await createRecipe(api);
    const otherName = uniqueName('other');
    const other = await createRecipe(api, { name: otherName });
    const params = recipeId(recipe.id);
    expect((await api.call('updateRecipe', { params, body: sentBack(recipe, { description: 'first' }) })).status).toBe(
      200,
    );
    const stale = await api.call('updateRecipe', { params, body: sentBack(recipe, { description: 'second' }) });
    expect(stale.problem).toMatchObject({ code: '10-1006', status: 409 });
    const mismatch = await api.call('updateRecipe', {
      params,
      body: sentBack(recipe, { id: other.id, lock_version: 1 }),
    });
    expect(mismatch.problem).toMatchObject({
      code: '20-1011',
      status: 400,
      detail: 'Recipe id in URL and request mismatch',
    });
    const taken = await api.call('updateRecipe', {
      params,
      body: sentBack(recipe, { lock_version: 1, name: otherName.toUpperCase() }),
    });
    expect(taken.problem).toMatchObject({ code: '10-409' });
    const gone = await api.call('updateRecipe', { params: recipeId(999_999), body: sentBack(recipe, { id: 999_999 }) });
    expect(gone.problem).toMatchObject(missing(999_999));
    expect((await read(recipe.id)).body).toMatchObject({ description: 'first', lock_version: 1, name: recipe.name });
  });
});

describe('merge patch (PATCH)', () => {
  it('changes only the fields sent; null clears an optional field', async () => {
    const recipe = await createRecipe(api, { description: 'keep me?', tags: ['x'], shared: false });
    const response = await api.call('mergeRecipe', {
      params: recipeId(recipe.id),
      body: { id: recipe.id, lock_version: 0, description: null, tags: ['y'] },
    });
    expect(response.body).toMatchObject({
      name: recipe.name,
      description: null,
      tags: ['y'],
      shared: false,
      lock_version: 1,
    });
    expect((await read(recipe.id)).body).toEqual(response.body);
  });

  it('validates the merged document like a full update', async () => {
    const recipe = await createRecipe(api);
    const params = recipeId(recipe.id);
    const invalid = await api.call('mergeRecipe', {
      params,
      body: { id: recipe.id, lock_version: 0, name: '', shared: 'no' },
    });
    expect(invalid.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { name: 'must not be empty', shared: 'must be true or false' },
    });
    const unknown = await api.call('mergeRecipe', { params, body: { id: recipe.id, lock_version: 0, aliases: ['x'] } });
    expect(unknown.problem).toMatchObject({ code: '10-1400', extraDetails: { aliases: 'is not a known field' } });
    expect((await api.call('mergeRecipe', { params, body: { id: recipe.id, lock_version: 3 } })).problem.code).toBe(
      '10-1006',
    );
    expect((await api.call('mergeRecipe', { params, body: { id: recipe.id + 1, lock_version: 0 } })).problem.code).toBe(
      '20-1011',
    );
    expect(
      (await api.call('mergeRecipe', { params: recipeId(999_998), body: { id: 999_998, lock_version: 0 } })).problem,
    ).toMatchObject(missing(999_998));
    expect((await read(recipe.id)).body).toEqual(recipe);
  });
});

describe('delete', () => {
  it('refuses a stale lock_version (10-1006), then deletes the recipe and every version', async () => {
    const name = uniqueName('deleted');
    const recipe = await createRecipe(api, { name });
    await api.call('createRecipeVersion', { params: recipeId(recipe.id), body: { code: 'SELECT * FROM orders' } });
    const params = recipeId(recipe.id);
    const stale = await api.call('deleteRecipe', { params, query: { lock_version: 1 } });
    expect(stale.problem).toMatchObject({ code: '10-1006' });
    const deleted = await api.call('deleteRecipe', { params, query: { lock_version: 0 } });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await read(recipe.id)).problem).toMatchObject(missing(recipe.id));
    expect((await api.call('getRecipeVersion', { params: versionOf(recipe.id, 1) })).problem).toMatchObject(
      missing(recipe.id),
    );
    expect((await api.call('deleteRecipe', { params })).problem).toMatchObject(missing(recipe.id));
    // The versions are gone from the store too, not only hidden.
    expect(await recipeVersions.list('local', recipe.id)).toEqual([]);
    // The name is free again.
    expect((await api.call('createRecipe', { body: recipeRequest({ name }) })).status).toBe(201);
  });

  it('refuses a new version of a recipe deleted meanwhile (20-1044)', async () => {
    const recipe = await createRecipe(api);
    await api.call('deleteRecipe', { params: recipeId(recipe.id) });
    const late = await api.call('createRecipeVersion', {
      params: recipeId(recipe.id),
      body: { code: 'SELECT * FROM orders' },
    });
    expect(late.problem).toMatchObject(missing(recipe.id));
    await expect(
      recipeVersions.create('local', { id: 'test' }, recipe.id, { code: 'SELECT * FROM orders', aliases: ['orders'] }),
    ).rejects.toMatchObject({
      code: '20-1044',
    });
  });
});
