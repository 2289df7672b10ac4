import { describeRecipeOutput, type AliasColumns } from '../../shared/engine/recipe-sql-describe';
import { validationError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import type { RecipeAnalyzeRequest } from '../../shared/model/recipe';
import { analyseInLanguage, requireLanguage } from '../../shared/recipes/content';
import { checkAliases, recipeLanguage } from '../../shared/recipes/rules';
import { recipeRoutes } from './routes';

/** The tables of the request as the describer takes them: one per alias, every alias and no other. */
function tablesOf(aliases: readonly string[], tables: NonNullable<RecipeAnalyzeRequest['tables']>): AliasColumns[] {
  const problems: Record<string, string> = {};
  for (const key of Object.keys(tables))
    if (!aliases.includes(key)) problems[`tables.${key}`] = 'is not one of the aliases';
  for (const alias of aliases)
    if (!Object.hasOwn(tables, alias))
      problems[`tables.${alias}`] = 'is required: give the columns of every alias, or no tables';
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return aliases.map((alias) => ({ alias, columns: tables[alias] ?? [] }));
}

/** Nothing is read or stored: the code is analysed in its language, and bound over empty tables when their columns are given. */
export const handler = httpHandler(recipeRoutes.analyse, async ({ body, principal, signal, deadline }) => {
  const language = recipeLanguage(body.language);
  await requireLanguage(principal.tenantId, language);
  checkAliases(body.aliases);
  if (body.tables === undefined)
    return { body: { ...(await analyseInLanguage(language, body.code, body.aliases)), columns: null } };
  if (language === 'trino-sql')
    // Binding Trino SQL needs Trino's catalogue and types: Athena's, which an analysis does not call.
    throw validationError({
      tables: 'is for duckdb-sql code only: Trino code is bound by Athena when it runs; send no tables',
    });
  return { body: await describeRecipeOutput(body.code, tablesOf(body.aliases, body.tables), { signal, deadline }) };
});
