/**
 * trino-sql recipes through the recipe routes: behind the athena toggle (10-1501 while off),
 * checked by the Trino analyzer on create, new version, version update and analyze, with the
 * same codes as DuckDB recipes; another tenant's tables, bucket paths, information_schema and
 * other catalogues are refused before anything is stored. A recipe's language is fixed. Runs
 * are in trino-runs.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createRecipe, recipeId, recipeRequest, sentBack, versionOf } from './fixtures';

let env: TestTwin;
let api: ApiClient;
const TENANT = 'trino-routes';

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor(TENANT, ['admin']);
});
afterAll(() => env?.close());

async function athena(on: boolean): Promise<void> {
  await env.setFeature('athena', TENANT, on ? 'on' : 'default');
}

const TRINO_CODE = "SELECT region, date_trunc('month', day) AS month, sum(amount) AS total FROM orders GROUP BY 1, 2";

describe('trino-sql recipes', () => {
  it('are refused with 10-1501 naming athena while the toggle is off, on create and analyze', async () => {
    const created = await api.call('createRecipe', {
      body: recipeRequest({ language: 'trino-sql', recipe_version: { code: TRINO_CODE } }),
    });
    expect([created.status, created.problem]).toMatchObject([
      501,
      { code: '10-1501', detail: expect.stringContaining('athena') },
    ]);
    const analysed = await api.call('analyzeRecipe', {
      body: { language: 'trino-sql', code: TRINO_CODE, aliases: ['orders'] },
    });
    expect(analysed.problem).toMatchObject({ code: '10-1501' });
  });

  describe('with the athena toggle on', () => {
    beforeAll(() => athena(true));

    it('are created, versioned and analysed by Trino’s grammar, not DuckDB’s', async () => {
      // FETCH FIRST and lambdas are Trino; EXCLUDE is DuckDB only.
      const code = `${TRINO_CODE} ORDER BY total DESC FETCH FIRST 5 ROWS ONLY`;
      const recipe = await createRecipe(api, { language: 'trino-sql', recipe_version: { code } });
      expect(recipe).toMatchObject({ language: 'trino-sql', latest_version: { code } });
      const duckdbOnly = 'SELECT * EXCLUDE (amount) FROM orders';
      const refusedVersion = await api.call('createRecipeVersion', {
        params: recipeId(recipe.id),
        body: { code: duckdbOnly },
      });
      expect(refusedVersion.problem).toMatchObject({ code: '40-50001' });
      const next = await api.call('createRecipeVersion', {
        params: recipeId(recipe.id),
        body: { code: 'SELECT transform(ARRAY[amount], x -> x * 2) AS doubled FROM orders' },
      });
      expect(next.status, next.text).toBe(201);
      const updated = await api.call('updateRecipeVersion', {
        params: versionOf(recipe.id, 2),
        body: { lock_version: 0, code: duckdbOnly },
      });
      expect(updated.problem).toMatchObject({ code: '40-50001' });
      const analysis = await api.call('analyzeRecipe', {
        body: { language: 'trino-sql', code: TRINO_CODE, aliases: ['orders'] },
      });
      expect(analysis.body).toEqual({
        referenced_aliases: ['orders'],
        ctes: [],
        functions: ['date_trunc', 'sum'],
        set_operations: [],
        subqueries: 0,
        columns: null,
      });
    });

    it.each([
      ['another tenant’s Glue table', 'SELECT * FROM dps_local.orders CROSS JOIN orders', '40-50006'],
      ['another catalogue', 'SELECT * FROM awsdatacatalog.dps_local.orders CROSS JOIN orders', '40-50006'],
      ['information_schema', 'SELECT table_name FROM information_schema.tables CROSS JOIN orders', '40-50006'],
      ['a bucket path', 'SELECT * FROM "s3://dps-data-local/local/tables/1/v1/" CROSS JOIN orders', '40-50006'],
      ['UNLOAD', "UNLOAD (SELECT * FROM orders) TO 's3://elsewhere/' WITH (format = 'PARQUET')", '40-50001'],
      ['DDL', "CREATE TABLE t WITH (external_location = 's3://elsewhere/') AS SELECT * FROM orders", '40-50002'],
    ])('refuses %s on every route, storing nothing', async (_name, code, answer) => {
      const recipe = await createRecipe(api, { language: 'trino-sql', recipe_version: { code: TRINO_CODE } });
      const responses = [
        await api.call('createRecipe', { body: recipeRequest({ language: 'trino-sql', recipe_version: { code } }) }),
        await api.call('createRecipeVersion', { params: recipeId(recipe.id), body: { code } }),
        await api.call('updateRecipeVersion', { params: versionOf(recipe.id, 1), body: { lock_version: 0, code } }),
        await api.call('analyzeRecipe', { body: { language: 'trino-sql', code, aliases: ['orders'] } }),
      ];
      for (const response of responses)
        expect([response.status, response.problem]).toMatchObject([400, { code: answer }]);
      const versions = await api.call('listRecipeVersions', { params: recipeId(recipe.id) });
      expect(versions.body.total_count).toBe(1);
    });

    it('keep their language: a full update or patch naming another is 20-1010', async () => {
      const recipe = await createRecipe(api, { language: 'trino-sql', recipe_version: { code: TRINO_CODE } });
      const put = await api.call('updateRecipe', {
        params: recipeId(recipe.id),
        body: sentBack(recipe, { language: 'duckdb-sql' }),
      });
      expect([put.status, put.problem]).toMatchObject([400, { code: '20-1010' }]);
      const patch = await api.call('mergeRecipe', {
        params: recipeId(recipe.id),
        body: { id: recipe.id, lock_version: recipe.lock_version, language: 'duckdb-sql' },
      });
      expect(patch.problem).toMatchObject({ code: '20-1010' });
      const kept = await api.call('mergeRecipe', {
        params: recipeId(recipe.id),
        body: { id: recipe.id, lock_version: recipe.lock_version, description: 'monthly totals' },
      });
      expect([kept.status, kept.body]).toMatchObject([200, { language: 'trino-sql', description: 'monthly totals' }]);
    });

    it('are analysed without tables only: binding Trino code is Athena’s', async () => {
      const response = await api.call('analyzeRecipe', {
        body: {
          language: 'trino-sql',
          code: TRINO_CODE,
          aliases: ['orders'],
          tables: { orders: [{ name: 'region', type: 'VARCHAR' }] },
        },
      });
      expect([response.status, response.problem]).toMatchObject([400, { code: '10-1400' }]);
    });
  });
});
