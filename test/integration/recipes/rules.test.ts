/**
 * The rules of a recipe's language (20-1010) and aliases (spec 8): 1 to 10 SQL identifiers
 * (10-1400 naming the alias), unique ignoring case (20-1051), CurrentTable only in a
 * single-source recipe (20-1053); on every route that takes them.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NON_ALIAS_KEYWORDS } from '../../../shared/model/recipe';
import { unchecked, type ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { JOIN_CODE, createRecipe, recipeId, recipeRequest, sentBack, versionOf } from './fixtures';

let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  api = env.admin;
});
afterAll(() => env?.close());

/** Code that reads each alias once: what the analyzer accepts for these aliases. */
const codeOver = (aliases: readonly string[]) => `SELECT * FROM ${aliases.join(' CROSS JOIN ')}`;

/** The same aliases sent to each route that takes aliases: create, new version, version update. */
async function withAliases(aliases: unknown) {
  const code =
    Array.isArray(aliases) && aliases.every((alias) => typeof alias === 'string')
      ? codeOver(aliases)
      : 'SELECT 1 FROM orders';
  const recipe = await createRecipe(api);
  const created = await api.call('createRecipe', {
    body: unchecked({ ...recipeRequest(), aliases, recipe_version: { code } }),
  });
  const added = await api.call('createRecipeVersion', {
    params: recipeId(recipe.id),
    body: unchecked({ code, aliases }),
  });
  const updated = await api.call('updateRecipeVersion', {
    params: versionOf(recipe.id, 1),
    body: unchecked({ lock_version: 0, code, aliases }),
  });
  return { created, added, updated, all: [created, added, updated] };
}

async function expectAccepted(aliases: readonly string[]): Promise<void> {
  const { created, added, updated } = await withAliases(aliases);
  expect(created.status).toBe(201);
  expect(created.body.latest_version.aliases).toEqual(aliases);
  expect(added.status).toBe(201);
  expect(added.body.aliases).toEqual(aliases);
  expect(updated.status).toBe(200);
  expect(updated.body.aliases).toEqual(aliases);
}

async function expectRefused(aliases: unknown, problem: Record<string, unknown>): Promise<void> {
  for (const response of (await withAliases(aliases)).all) expect(response.problem).toMatchObject(problem);
}

describe('language', () => {
  it('is DuckDB SQL by default and when named; any other is refused with 20-1010 on create, PUT and PATCH', async () => {
    expect((await createRecipe(api, { language: null })).language).toBe('duckdb-sql');
    for (const language of ['sql', 'DuckDB-SQL', 'python', 'spark-sql', ' duckdb-sql', '']) {
      const response = await api.call('createRecipe', { body: recipeRequest({ language }) });
      expect(response.problem, language).toMatchObject({
        code: '20-1010',
        status: 400,
        detail: 'Recipe language not supported',
        extraDetails: { language: 'must be one of: duckdb-sql, trino-sql' },
      });
    }
    const recipe = await createRecipe(api);
    const params = recipeId(recipe.id);
    expect(
      (await api.call('updateRecipe', { params, body: sentBack(recipe, { language: 'tsql' }) })).problem.code,
    ).toBe('20-1010');
    expect(
      (await api.call('mergeRecipe', { params, body: { id: recipe.id, lock_version: 0, language: 'tsql' } })).problem
        .code,
    ).toBe('20-1010');
    // null in a patch removes the field: the default again.
    expect(
      (await api.call('mergeRecipe', { params, body: { id: recipe.id, lock_version: 0, language: null } })).body
        .language,
    ).toBe('duckdb-sql');
  });
});

describe('aliases', () => {
  it('accepts 1 to 10 SQL identifiers, CurrentTable as a single source', async () => {
    for (const aliases of [
      ['CurrentTable'],
      ['_t1'],
      ['orders', 'Customers'],
      Array.from({ length: 10 }, (_, index) => `t${index}`),
    ])
      await expectAccepted(aliases);
  });

  it('refuses none, more than 10, or a list that is not one (10-1400)', async () => {
    await expectRefused([], { code: '10-1400', extraDetails: { aliases: 'must have at least one item' } });
    await expectRefused(
      Array.from({ length: 11 }, (_, index) => `t${index}`),
      { code: '10-1400', extraDetails: { aliases: 'must have at most 10 items' } },
    );
    await expectRefused('orders', { code: '10-1400', extraDetails: { aliases: 'must be an array' } });
    const noAliases = await api.call('createRecipe', {
      body: unchecked({ name: 'no aliases', recipe_version: { code: 'SELECT 1' } }),
    });
    expect(noAliases.problem).toMatchObject({ code: '10-1400', extraDetails: { aliases: 'is required' } });
  });

  it('refuses an alias that is not a SQL identifier, naming it (10-1400)', async () => {
    const identifier =
      'must be a SQL identifier: a letter or underscore, then letters, digits or underscores, at most 63 characters';
    for (const alias of [
      '1orders',
      'order items',
      'orders;drop',
      '"orders"',
      'sales.orders',
      'ordersé',
      '',
      'x'.repeat(64),
      'a-b',
    ]) {
      await expectRefused(['customers', alias], { code: '10-1400', extraDetails: { 'aliases[1]': identifier } });
    }
    await expectRefused(['orders', 42], { code: '10-1400', extraDetails: { 'aliases[1]': 'must be a string' } });
    await expectAccepted(['x'.repeat(63)]);
  });

  it('refuses DuckDB keywords that cannot name a table, in any case (10-1400)', async () => {
    for (const alias of ['select', 'JOIN', 'Left', 'qualify', 'pivot']) {
      await expectRefused([alias], {
        code: '10-1400',
        extraDetails: {
          'aliases[0]': 'must not be a DuckDB keyword that cannot name a table (such as select or join)',
        },
      });
    }
    // Unreserved keywords name tables fine.
    await expectAccepted(['data', 'year']);
  });

  it('holds the keyword list to the engine’s: DuckDB’s reserved and type-function keywords', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(
        "SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category IN ('reserved', 'type_function')",
      );
      expect(new Set(reader.getRows().map(([keyword]) => String(keyword)))).toEqual(NON_ALIAS_KEYWORDS);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('refuses aliases repeated ignoring case (20-1051), naming the repeat', async () => {
    await expectRefused(['orders', 'customers', 'ORDERS'], {
      code: '20-1051',
      status: 400,
      detail: 'Duplicate alias ORDERS; aliases are unique case-insensitively',
    });
    await expectRefused(['t', 't'], {
      code: '20-1051',
      detail: 'Duplicate alias t; aliases are unique case-insensitively',
    });
  });

  it('refuses CurrentTable, in any case, among several aliases (20-1053)', async () => {
    for (const current of ['CurrentTable', 'currenttable', 'CURRENTTABLE']) {
      await expectRefused(['orders', current], {
        code: '20-1053',
        status: 400,
        detail: 'Alias CurrentTable is reserved and cannot be used in multi-source recipes',
      });
    }
  });

  it('keeps the latest version’s aliases for a new version sent without any', async () => {
    const recipe = await createRecipe(api, { aliases: ['orders', 'customers'], recipe_version: { code: JOIN_CODE } });
    const next = await api.call('createRecipeVersion', {
      params: recipeId(recipe.id),
      body: { code: `${JOIN_CODE} WHERE o.id > 1` },
    });
    expect(next.body).toMatchObject({ version_number: 2, aliases: ['orders', 'customers'] });
  });
});
