import { analyseRecipeSql, type RecipeSqlAnalysis } from '../engine/recipe-sql';
import { trinoLineageTree } from '../engine/trino/trino-lineage-tree';
import { analyseTrinoQuery, analyseTrinoSql } from '../engine/trino/trino-sql';
import { AppError } from '../errors/app-error';
import { requireFeature } from '../features/store';
import type { RecipeLanguage } from '../model/recipe';
import { checkAliases } from './rules';
import type { VersionContent } from './versions';

/**
 * A version's code and aliases as they may be stored: the aliases' rules, then the SQL
 * analyzer of the recipe's language (40-*, 20-1054). Recipe create, version create and
 * version update all come through here, so a stored version always passed the analyzer of its
 * time and language.
 */
export async function checkedContent(
  code: string | null | undefined,
  aliases: readonly string[],
  language: RecipeLanguage,
): Promise<VersionContent> {
  checkAliases(aliases);
  // The analyzer's first refusal too; stated here so that what is stored is text.
  if (code === null || code === undefined) throw new AppError('40-50004');
  if (language !== 'trino-sql') {
    await analyseInLanguage(language, code, aliases);
    return { code, aliases };
  }
  // The parse the analyzer made gives the column-lineage tree: the lineage routes never load the parser.
  const { query } = analyseTrinoQuery(code, aliases);
  return { code, aliases, lineage_tree: JSON.stringify(trinoLineageTree(query)) };
}

/**
 * The analyzer of each language: DuckDB's parser for duckdb-sql (recipe-sql.ts), Trino's
 * grammar for trino-sql (engine/trino/trino-sql.ts), with the same rules and codes.
 */
export async function analyseInLanguage(
  language: RecipeLanguage,
  code: string | null | undefined,
  aliases: readonly string[],
): Promise<RecipeSqlAnalysis> {
  return language === 'trino-sql' ? analyseTrinoSql(code, aliases) : analyseRecipeSql(code, aliases);
}

/** trino-sql is run by Athena, behind the `athena` toggle: 10-1501 naming it while it is off for the tenant. */
export async function requireLanguage(tenantId: string, language: RecipeLanguage): Promise<void> {
  if (language === 'trino-sql') await requireFeature(tenantId, 'athena');
}
