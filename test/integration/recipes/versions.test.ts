/**
 * Recipe versions (spec 2.7, 3 conditions 3, 9.4): numbered from 1 in order of creation,
 * also under concurrency; the recipe shows its latest version (from its own item); code
 * updates with the version's lock_version, refused for a locked version (20-1046); the code
 * and usage reads; 20-1045 for a missing version.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../shared/aws/clients';
import { config } from '../../../shared/config';
import { keys } from '../../../shared/db/keys';
import type { StoredRecipeUsage } from '../../../shared/recipes/items';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { JOIN_CODE, createRecipe, recipeId, versionOf, versionSentBack, type Recipe } from './fixtures';

let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  api = env.admin;
});
afterAll(() => env?.close());

const TENANT = 'local';
const readRecipe = async (id: number) => (await api.call('getRecipe', { params: recipeId(id) })).body;
const readVersion = (id: number, versionNumber: number) =>
  api.call('getRecipeVersion', { params: versionOf(id, versionNumber) });
const newVersion = (id: number, code: string, aliases?: string[]) =>
  api.call('createRecipeVersion', { params: recipeId(id), body: { code, aliases } });
const listVersions = async (id: number) => (await api.call('listRecipeVersions', { params: recipeId(id) })).body;

/** The recipe shows `versionNumber` as its latest version exactly as the version reads itself; lock_version stays. */
async function expectLatest(recipe: Recipe, versionNumber: number): Promise<void> {
  const current = await readRecipe(recipe.id);
  expect(current.lock_version).toBe(recipe.lock_version);
  expect(current.latest_version).toEqual((await readVersion(recipe.id, versionNumber)).body);
  const listed = (await api.call('listRecipes', { query: { filter: `id eq ${recipe.id}` } })).body.items;
  expect(listed).toEqual([current]);
}

describe('creating versions', () => {
  it('numbers them after the latest, keeps the aliases unless given, and makes each the latest', async () => {
    const recipe = await createRecipe(api);
    const second = await newVersion(recipe.id, 'SELECT count(*) AS n FROM orders');
    expect(second.status).toBe(201);
    expect(second.headers.get('location')).toBe(`/api/data/v1/recipes/${recipe.id}/versions/2`);
    expect(second.body).toMatchObject({
      recipe_id: recipe.id,
      version_number: 2,
      code: 'SELECT count(*) AS n FROM orders',
      aliases: ['orders'],
      is_locked: false,
      lock_version: 0,
    });
    await expectLatest(recipe, 2);
    const third = await newVersion(recipe.id, JOIN_CODE, ['orders', 'customers']);
    expect(third.body).toMatchObject({ version_number: 3, aliases: ['orders', 'customers'] });
    await expectLatest(recipe, 3);
    // Earlier versions stay as they were.
    expect((await readVersion(recipe.id, 1)).body).toEqual(recipe.latest_version);
    expect(await listVersions(recipe.id)).toEqual({
      items: [recipe.latest_version, second.body, third.body],
      total_count: 3,
      page_size: 1000,
      page_number: 0,
    });
  });

  it('keeps numbers consecutive when versions are created concurrently: none lost, none repeated', async () => {
    const recipe = await createRecipe(api);
    const codes = Array.from({ length: 20 }, (_, index) => `SELECT ${index} AS n FROM orders`);
    const responses = await Promise.all(codes.map((code) => newVersion(recipe.id, code)));
    expect(responses.map((response) => response.status)).toEqual(codes.map(() => 201));
    const numbers = responses.map((response) => response.body.version_number).sort((a, b) => a - b);
    expect(numbers).toEqual(codes.map((_, index) => index + 2));
    const listed = await listVersions(recipe.id);
    expect(listed.items.map((version) => version.version_number)).toEqual([1, ...numbers]);
    // Each code is stored once, under the number its creation answered.
    for (const response of responses)
      expect((await readVersion(recipe.id, response.body.version_number)).body).toEqual(response.body);
    expect(new Set(listed.items.map((version) => version.code)).size).toBe(21);
    await expectLatest(recipe, 21);
  });

  it('lists versions with ListQuery and the recipes envelope', async () => {
    const recipe = await createRecipe(api);
    for (let index = 0; index < 4; index += 1) await newVersion(recipe.id, `SELECT ${index} AS n FROM orders`);
    const page = (
      await api.call('listRecipeVersions', {
        params: recipeId(recipe.id),
        query: { sort: '-version_number', offset: 2, limit: 2 },
      })
    ).body;
    expect(page).toMatchObject({ total_count: 5, page_size: 2, page_number: 1 });
    expect(page.items.map((version) => version.version_number)).toEqual([3, 2]);
    const filtered = (
      await api.call('listRecipeVersions', {
        params: recipeId(recipe.id),
        query: { filter: 'version_number ge 4 and is_locked eq false' },
      })
    ).body;
    expect(filtered.items.map((version) => version.version_number)).toEqual([4, 5]);
  });
});

describe('reading versions', () => {
  it('answers the code of a version, and 20-1045 / 20-1044 for a missing version / recipe', async () => {
    const recipe = await createRecipe(api);
    const code = await api.call('getRecipeVersionCode', { params: versionOf(recipe.id, 1) });
    expect(code.body).toEqual({ code: recipe.latest_version.code });
    for (const operationId of ['getRecipeVersion', 'getRecipeVersionCode', 'listRecipeVersionUsages'] as const) {
      const noVersion = await api.call(operationId, { params: versionOf(recipe.id, 2) });
      expect(noVersion.problem, operationId).toMatchObject({
        code: '20-1045',
        status: 404,
        detail: `Recipe version 2 for recipe ID ${recipe.id} not found`,
      });
      const noRecipe = await api.call(operationId, { params: versionOf(999_997, 1) });
      expect(noRecipe.problem, operationId).toMatchObject({
        code: '20-1044',
        status: 404,
        detail: 'Recipe with ID 999997 not found',
      });
    }
    expect((await api.call('listRecipeVersions', { params: recipeId(999_997) })).problem.code).toBe('20-1044');
    expect(
      (await api.call('createRecipeVersion', { params: recipeId(999_997), body: { code: 'SELECT 1 FROM orders' } }))
        .problem.code,
    ).toBe('20-1044');
  });

  it('lists the dataset nodes that use a version: none yet, and each recorded use with the usage shape', async () => {
    const recipe = await createRecipe(api);
    await newVersion(recipe.id, 'SELECT 2 AS two FROM orders');
    const usages = (version: number) => api.call('listRecipeVersionUsages', { params: versionOf(recipe.id, version) });
    expect((await usages(1)).body).toEqual({ items: [], total_count: 0, page_size: 1000, page_number: 0 });
    // Datasets record a use beside the version (a later issue); one written as they will.
    const actor = { id: 'local.admin', name: 'admin' };
    const usage: StoredRecipeUsage = {
      recipe_id: recipe.id,
      recipe_version_number: 1,
      dataset_id: 7,
      version_number: 2,
      version_display_name: 'V2',
      release_status: true,
      lock_version: 3,
      expiration_date: null,
      dataset_name: 'monthly sales',
      node_id: 11,
      created_by: actor,
      created_date: '2026-01-01T00:00:00.000Z',
      last_modified_by: actor,
      last_modified_date: '2026-01-02T00:00:00.000Z',
    };
    await dynamoDocumentClient().send(
      new PutCommand({
        TableName: config.tableName,
        Item: {
          ...keys.versionUse(TENANT, 'RECIPE', recipe.id, 1, [7, 2, 11]),
          kind: 'RECIPE_VERSION_USAGE',
          tenant_id: TENANT,
          ...usage,
        },
      }),
    );
    const { recipe_id: _recipe, recipe_version_number: _version, ...shown } = usage;
    expect((await usages(1)).body).toEqual({ items: [shown], total_count: 1, page_size: 1000, page_number: 0 });
    // Only version 1 is used.
    expect((await usages(2)).body.items).toEqual([]);
    expect(
      (
        await api.call('listRecipeVersionUsages', {
          params: versionOf(recipe.id, 1),
          query: { filter: 'release_status eq false' },
        })
      ).body.total_count,
    ).toBe(0);
  });
});

describe('updating the code of a version', () => {
  it('replaces code and aliases with the version’s lock_version, and the recipe shows it when it is the latest', async () => {
    const recipe = await createRecipe(api);
    const params = versionOf(recipe.id, 1);
    const response = await api.call('updateRecipeVersion', {
      params,
      body: { lock_version: 0, code: JOIN_CODE, aliases: ['orders', 'customers'] },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      version_number: 1,
      code: JOIN_CODE,
      aliases: ['orders', 'customers'],
      lock_version: 1,
      created_date: recipe.latest_version.created_date,
    });
    expect(response.body.last_modified_date >= recipe.latest_version.last_modified_date).toBe(true);
    expect((await readVersion(recipe.id, 1)).body).toEqual(response.body);
    await expectLatest(recipe, 1);
    // Without aliases, the version keeps its own.
    const kept = await api.call('updateRecipeVersion', {
      params,
      body: { lock_version: 1, code: 'SELECT * FROM orders, customers' },
    });
    expect(kept.body).toMatchObject({ aliases: ['orders', 'customers'], lock_version: 2 });
  });

  it('leaves the recipe’s latest version alone when an older version changes', async () => {
    const recipe = await createRecipe(api);
    await newVersion(recipe.id, 'SELECT 2 AS two FROM orders');
    const before = await readRecipe(recipe.id);
    const older = await api.call('updateRecipeVersion', {
      params: versionOf(recipe.id, 1),
      body: versionSentBack(recipe.latest_version, { code: 'SELECT 1 AS one FROM orders' }),
    });
    expect(older.body).toMatchObject({ version_number: 1, code: 'SELECT 1 AS one FROM orders', lock_version: 1 });
    expect(await readRecipe(recipe.id)).toEqual(before);
    await expectLatest(recipe, 2);
  });

  it('refuses a stale lock_version (10-1006), another recipe id (20-1011) or version number (10-1400)', async () => {
    const recipe = await createRecipe(api);
    const params = versionOf(recipe.id, 1);
    const stale = await api.call('updateRecipeVersion', {
      params,
      body: { lock_version: 4, code: 'SELECT 9 AS n FROM orders' },
    });
    expect(stale.problem).toMatchObject({ code: '10-1006', status: 409 });
    const otherRecipe = await api.call('updateRecipeVersion', {
      params,
      body: versionSentBack(recipe.latest_version, { recipe_id: recipe.id + 1 }),
    });
    expect(otherRecipe.problem).toMatchObject({ code: '20-1011' });
    const otherVersion = await api.call('updateRecipeVersion', {
      params,
      body: versionSentBack(recipe.latest_version, { version_number: 2 }),
    });
    expect(otherVersion.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { version_number: 'must be the version number of the path' },
    });
    const missing = await api.call('updateRecipeVersion', {
      params: versionOf(recipe.id, 5),
      body: { lock_version: 0, code: 'SELECT 1 FROM orders' },
    });
    expect(missing.problem).toMatchObject({ code: '20-1045' });
    expect((await readVersion(recipe.id, 1)).body).toEqual(recipe.latest_version);
  });

  it('lets exactly one of 20 concurrent updates with the same lock_version through', async () => {
    const recipe = await createRecipe(api);
    const params = versionOf(recipe.id, 1);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        api.call('updateRecipeVersion', {
          params,
          body: { lock_version: 0, code: `SELECT ${index} AS n FROM orders` },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    for (const response of responses.filter((candidate) => candidate.status !== 200))
      expect(response.problem).toMatchObject({ code: '10-1006', status: 409 });
    const winner = responses.find((response) => response.status === 200)!.body;
    expect(winner.lock_version).toBe(1);
    expect((await readVersion(recipe.id, 1)).body).toEqual(winner);
    await expectLatest(recipe, 1);
  });
});
