import { AppError } from '../errors/app-error';
import { CURRENT_TABLE_ALIAS, DEFAULT_RECIPE_LANGUAGE, RECIPE_LANGUAGES, type RecipeLanguage } from '../model/recipe';

/**
 * The recipe rules request schemas cannot state as 10-1400, because the catalogue names
 * their codes (spec 7.4, 8): the language (20-1010) and the aliases as a set (20-1051,
 * 20-1053). Each alias on its own (an identifier, 1 to 10 of them) is the schema's. No
 * DuckDB here: routes that do not analyse SQL use these rules too (content.ts analyses).
 */

/** The stored language: DuckDB SQL when none is named, 20-1010 for any other name. */
export function recipeLanguage(language: string | null | undefined): RecipeLanguage {
  if (language === null || language === undefined) return DEFAULT_RECIPE_LANGUAGE;
  const known = RECIPE_LANGUAGES.find((candidate) => candidate === language);
  if (!known)
    throw new AppError('20-1010', { extraDetails: { language: `must be one of: ${RECIPE_LANGUAGES.join(', ')}` } });
  return known;
}

/**
 * Aliases unique ignoring case (20-1051, naming the repeat), and CurrentTable, the name of a
 * single-source recipe's one table, refused among several aliases (20-1053) in any case:
 * the SQL that reads it does not tell case apart.
 */
export function checkAliases(aliases: readonly string[]): void {
  const seen = new Set<string>();
  for (const alias of aliases) {
    const key = alias.toLowerCase();
    if (seen.has(key)) throw new AppError('20-1051', { params: [alias] });
    seen.add(key);
  }
  if (aliases.length > 1 && seen.has(CURRENT_TABLE_ALIAS.toLowerCase())) throw new AppError('20-1053');
}
