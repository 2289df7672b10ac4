/**
 * The SQL analyzer behind the recipe routes: recipe create, version create and version
 * update refuse what it refuses, with its code, and store nothing; POST /recipes/analyze
 * answers what the code reads and, given the tables' columns, the output columns. (The
 * analyzer's own rules are tested in test/unit/engine; here, that every route applies them.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { JOIN_CODE, createRecipe, recipeId, recipeRequest, versionOf } from './fixtures';

let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  api = env.admin;
});
afterAll(() => env?.close());

/** Code the analyzer refuses for the aliases orders and customers, with the code it answers. */
const REFUSED: readonly {
  readonly code: string | null;
  readonly answer: string;
  readonly details?: Record<string, unknown>;
}[] = [
  { code: null, answer: '40-50004' },
  { code: '  -- nothing\n ', answer: '40-50004' },
  {
    code: 'SELECT o.id FROM orders o JOIN customers c ON',
    answer: '40-50001',
    details: { position: expect.any(Number), line: 1, column: expect.any(Number) },
  },
  { code: 'DELETE FROM orders', answer: '40-50002' },
  { code: `${JOIN_CODE}; SELECT 1`, answer: '40-50002' },
  { code: "SELECT * FROM read_csv('/etc/passwd'), orders, customers", answer: '40-50005' },
  { code: `SELECT random() AS r, o.id FROM orders o, customers c`, answer: '40-50003' },
  { code: 'SELECT * FROM orders, customers, secrets', answer: '40-50006', details: { tables: ['secrets'] } },
  { code: 'SELECT * FROM orders', answer: '40-50008', details: { aliases: ['customers'] } },
  {
    code: 'SELECT * FROM orders, clients',
    answer: '20-1054',
    details: { unknown_tables: ['clients'], unreferenced_aliases: ['customers'] },
  },
  { code: 'SELECT * EXCEPT (id) FROM orders, customers', answer: '40-50007' },
];
const ALIASES = ['orders', 'customers'];

describe('recipe routes refuse what the analyzer refuses', () => {
  it.each(REFUSED)(
    '$answer for $code, on create, new version, version update and analyze; nothing stored',
    async ({ code, answer, details }) => {
      const recipe = await createRecipe(api, { aliases: ALIASES, recipe_version: { code: JOIN_CODE } });
      const body = recipeRequest({ aliases: ALIASES, recipe_version: { code } });
      const responses = [
        await api.call('createRecipe', { body }),
        await api.call('createRecipeVersion', { params: recipeId(recipe.id), body: { code } }),
        await api.call('updateRecipeVersion', { params: versionOf(recipe.id, 1), body: { lock_version: 0, code } }),
        await api.call('analyzeRecipe', { body: { code, aliases: ALIASES } }),
      ];
      for (const response of responses) {
        expect(response.status).toBe(400);
        expect(response.problem).toMatchObject({ code: answer, ...(details ? { extraDetails: details } : {}) });
      }
      expect((await api.call('listRecipes', { query: { filter: `name eq '${body.name}'` } })).body.total_count).toBe(0);
      expect((await api.call('getRecipe', { params: recipeId(recipe.id) })).body).toEqual(recipe);
      expect((await api.call('listRecipeVersions', { params: recipeId(recipe.id) })).body.total_count).toBe(1);
    },
  );

  it('checks the code against the aliases it will be stored with: a new version’s own, or the latest version’s', async () => {
    const recipe = await createRecipe(api, { aliases: ALIASES, recipe_version: { code: JOIN_CODE } });
    const params = recipeId(recipe.id);
    // The latest version reads two aliases: code reading one of them is refused without new aliases...
    expect(
      (await api.call('createRecipeVersion', { params, body: { code: 'SELECT * FROM orders' } })).problem.code,
    ).toBe('40-50008');
    // ...and accepted with them.
    const single = await api.call('createRecipeVersion', {
      params,
      body: { code: 'SELECT * FROM orders', aliases: ['orders'] },
    });
    expect(single.body).toMatchObject({ version_number: 2, aliases: ['orders'] });
    // An update keeps the version's own aliases unless it sends others.
    const update = (code: string, aliases?: string[]) =>
      api.call('updateRecipeVersion', { params: versionOf(recipe.id, 2), body: { lock_version: 0, code, aliases } });
    expect((await update(JOIN_CODE)).problem.code).toBe('40-50006');
    expect((await update(JOIN_CODE, ALIASES)).body).toMatchObject({ aliases: ALIASES, lock_version: 1 });
  });
});

describe('POST /recipes/analyze', () => {
  it('answers what the code reads, and stores nothing', async () => {
    const before = (await api.call('listRecipes')).body.total_count;
    const code = `WITH big AS (SELECT * FROM orders WHERE amount > 100)
      SELECT c.name, sum(b.amount) AS total FROM big b JOIN customers c ON c.id = b.customer_id
      WHERE c.id IN (SELECT customer_id FROM orders) GROUP BY c.name
      UNION ALL SELECT 'none', 0`;
    const response = await api.call('analyzeRecipe', { body: { code, aliases: ['customers', 'orders'] } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      referenced_aliases: ['customers', 'orders'],
      ctes: ['big'],
      functions: expect.arrayContaining(['sum']),
      set_operations: ['UNION ALL'],
      subqueries: 1,
      columns: null,
    });
    expect((await api.call('listRecipes')).body.total_count).toBe(before);
  });

  it('names the output columns and their types when the tables’ columns are given', async () => {
    const response = await api.call('analyzeRecipe', {
      body: {
        code: JOIN_CODE,
        aliases: ALIASES,
        tables: {
          orders: [
            { name: 'id', type: 'BIGINT' },
            { name: 'customer_id', type: 'INTEGER' },
          ],
          customers: [
            { name: 'id', type: 'INTEGER' },
            { name: 'name', type: 'VARCHAR' },
          ],
        },
      },
    });
    expect(response.body).toMatchObject({
      referenced_aliases: ALIASES,
      columns: [
        { name: 'id', type: 'BIGINT' },
        { name: 'name', type: 'VARCHAR' },
      ],
    });
  });

  it('refuses tables that are not the aliases, column types that are not one type, and code that does not bind', async () => {
    const orders = [{ name: 'id', type: 'BIGINT' }];
    const analyse = (tables: Record<string, { name: string; type: string }[]>, code = JOIN_CODE) =>
      api.call('analyzeRecipe', { body: { code, aliases: ALIASES, tables } });
    expect((await analyse({ orders })).problem).toMatchObject({
      code: '10-1400',
      extraDetails: { 'tables.customers': 'is required: give the columns of every alias, or no tables' },
    });
    expect((await analyse({ orders, customers: orders, other: orders })).problem).toMatchObject({
      code: '10-1400',
      extraDetails: { 'tables.other': 'is not one of the aliases' },
    });
    const badType = await analyse({ orders, customers: [{ name: 'id', type: 'INTEGER); DROP TABLE x; --' }] });
    expect(badType.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { 'tables.customers.id': expect.stringContaining('must be one DuckDB type') },
    });
    // customers has no column name, o no customer_id.
    const unbound = await analyse({ orders, customers: orders });
    expect(unbound.problem).toMatchObject({ code: '40-50001', extraDetails: { cause: expect.any(String) } });
  });

  it('applies the alias rules (20-1051, 20-1053, 10-1400)', async () => {
    const analyse = (aliases: string[]) => api.call('analyzeRecipe', { body: { code: 'SELECT * FROM a, b', aliases } });
    expect((await analyse(['a', 'A'])).problem.code).toBe('20-1051');
    expect((await analyse(['a', 'CurrentTable'])).problem.code).toBe('20-1053');
    expect((await analyse(['a', 'select'])).problem).toMatchObject({
      code: '10-1400',
      extraDetails: { 'aliases[1]': expect.any(String) },
    });
  });
});
