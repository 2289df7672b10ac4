import { describe, expect, it } from 'vitest';
import { analyseRecipeSql } from '../../../shared/engine/recipe-sql';
import { RECIPE_SQL_CORPUS } from './recipe-sql-corpus';

describe('the recipe SQL corpus', () => {
  it('holds at least 40 recipes with distinct names', () => {
    expect(RECIPE_SQL_CORPUS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(RECIPE_SQL_CORPUS.map((entry) => entry.name)).size).toBe(RECIPE_SQL_CORPUS.length);
  });

  it.each(RECIPE_SQL_CORPUS.map((entry) => [entry.name, entry] as const))('%s', async (_name, entry) => {
    const analysis = await analyseRecipeSql(entry.code, entry.aliases);
    expect({ references: analysis.referenced_aliases, ctes: analysis.ctes }).toEqual({
      references: entry.references,
      ctes: entry.ctes ?? [],
    });
  });
});
