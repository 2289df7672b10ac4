import { analyseRecipeSql } from '../engine/recipe-sql';
import { AppError } from '../errors/app-error';
import { checkAliases } from './rules';
import type { VersionContent } from './versions';

/**
 * A version's code and aliases as they may be stored: the aliases' rules, then the SQL
 * analyzer's (40-*, 20-1054). Recipe create, version create and version update all come
 * through here, so a stored version always passed the analyzer of its time.
 */
export async function checkedContent(
  code: string | null | undefined,
  aliases: readonly string[],
): Promise<VersionContent> {
  checkAliases(aliases);
  // The analyzer's first refusal too; stated here so that what is stored is text.
  if (code === null || code === undefined) throw new AppError('40-50004');
  await analyseRecipeSql(code, aliases);
  return { code, aliases };
}
