import { describeRecipeOutput, type AnalysisRequest, type OutputColumn } from '../engine/recipe-sql-describe';
import { analyseRecipeSql } from '../engine/recipe-sql';
import { AppError, isAppError } from '../errors/app-error';
import type { TenantTable } from './tenant-tables';

/**
 * SQL the assistant writes or is asked about, checked by the service's own recipe SQL
 * analyzer exactly as the recipe routes check it: every rule of analyseRecipeSql, then DuckDB
 * binds the query over empty tables with the real columns of the tables it reads, each read
 * by its alias (tenant-tables.ts). A query that passes is one a recipe could be created with.
 */

export type SqlCheck =
  | { readonly ok: true; readonly tables: readonly TenantTable[]; readonly columns: readonly OutputColumn[] }
  | {
      readonly ok: false;
      readonly problem: { readonly code: string; readonly detail: string; readonly extraDetails?: unknown };
    };

/** The analyzer's refusal, as the model and the user read it. */
function refusal(error: AppError): SqlCheck {
  return { ok: false, problem: { code: error.code, detail: error.message, extraDetails: error.extraDetails } };
}

/** Failures that are the service's, not the SQL's (every engine busy, an internal error): they fail the request. */
const isServiceFailure = (error: AppError) => error.code.startsWith('50-') || error.code === '10-500';

/**
 * The aliases `code` reads among every table's. Declared all at once, every table the code
 * does not read is "declared but not read" (40-50008, which names them: the rest is what it
 * reads), and a table that is no one's alias comes with those as 20-1054; it is answered as
 * the analyzer answers unknown tables when every alias is read, 40-50006 naming them.
 */
async function aliasesRead(code: string, aliases: readonly string[]): Promise<readonly string[]> {
  try {
    return (await analyseRecipeSql(code, aliases)).referenced_aliases;
  } catch (error) {
    if (!isAppError(error)) throw error;
    if (error.code === '20-1054')
      throw new AppError('40-50006', { extraDetails: { tables: error.extraDetails?.unknown_tables, aliases } });
    if (error.code !== '40-50008') throw error;
    const unread = new Set((error.extraDetails?.aliases as readonly string[] | undefined) ?? []);
    return aliases.filter((alias) => !unread.has(alias));
  }
}

/** Checks `code` against the tenant's tables; a refusal is an answer, not an exception. */
export async function checkSql(
  code: string,
  tables: readonly TenantTable[],
  request: AnalysisRequest,
): Promise<SqlCheck> {
  try {
    const read = new Set(
      await aliasesRead(
        code,
        tables.map((table) => table.alias),
      ),
    );
    const used = tables.filter((table) => read.has(table.alias));
    const described = await describeRecipeOutput(
      code,
      used.map((table) => ({
        alias: table.alias,
        columns: table.columns.map((column) => ({ name: column.name, type: column.type })),
      })),
      request,
    );
    return { ok: true, tables: used, columns: described.columns };
  } catch (error) {
    if (!isAppError(error) || isServiceFailure(error)) throw error;
    return refusal(error);
  }
}

/** A fenced SQL block of a reply: where it stands in the text, and its code. */
export interface SqlBlock {
  readonly text: string;
  readonly code: string;
}

/** Every ```sql fenced block of `text`, in order. */
export function sqlBlocks(text: string): SqlBlock[] {
  return [...text.matchAll(/```sql[^\n]*\n([\s\S]*?)```/gi)].map((match) => ({ text: match[0], code: match[1]! }));
}
