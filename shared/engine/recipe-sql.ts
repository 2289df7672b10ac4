import { AppError, validationError } from '../errors/app-error';
import {
  ALLOWED_FUNCTIONS,
  ALLOWED_TABLE_FUNCTIONS,
  BINDER_FUNCTIONS,
  NON_DETERMINISTIC_FUNCTIONS,
  WINDOW_ONLY_FUNCTIONS,
} from './recipe-sql-functions';
import { serializeSql, type SerializedSql } from './recipe-sql-parse';
import { readQueryTree, type QueryTree } from './recipe-sql-tree';

/**
 * The recipe SQL analyzer: one module for recipe create, version create and update, the
 * analyze route and (later) execution. DuckDB's own parser reads the code, so the analyzer
 * and the engine that runs it cannot disagree on what it says; the analyzer then walks the
 * tree for table references, CTEs and function calls. The rules and the code each answers
 * are in docs/decisions.md, "Recipe SQL analyzer"; in the order they are checked:
 * 40-50004 no code; 10-1400 code over MAX_ANALYSED_CODE_LENGTH; 40-50001 a NUL character;
 * 40-50007 `SELECT * EXCEPT (...)`; 40-50001 invalid syntax; 40-50002 not exactly one
 * query; 40-50001 parameters; 40-50005 disallowed functions; 40-50003 non-deterministic or
 * window-only functions used wrongly; 40-50006, 20-1054 or 40-50008 when the aliases and
 * the tables read disagree.
 */

/** What the analyzer found in a recipe's code. */
export interface RecipeSqlAnalysis {
  readonly statement: 'SELECT';
  /** The aliases the code reads, spelled as the recipe declares them, in declaration order. */
  readonly referenced_aliases: string[];
  /** CTE names as written, in order of definition. */
  readonly ctes: string[];
  /** Every function called (scalar, aggregate, window, table), lower case, sorted, once each. */
  readonly functions: string[];
  /** Set operations in order of appearance: UNION, UNION ALL, INTERSECT, EXCEPT, UNION BY NAME... */
  readonly set_operations: string[];
  /** Subqueries in FROM clauses and expressions (IN, EXISTS, scalar). */
  readonly subqueries: number;
}

/**
 * The longest code the analyzer reads: a bound of its own against hostile input, above the
 * API's limit (shared/model/recipe.ts), so every caller is covered. DuckDB parses the
 * longest pathological queries of this size (10,000 ANDs, 30,000-value IN lists) in under
 * half a second.
 */
export const MAX_ANALYSED_CODE_LENGTH = 100_000;

/**
 * Analyses `code` against the recipe's `aliases` (the table names it may read), throwing
 * the AppError of the first rule it breaks.
 */
export async function analyseRecipeSql(
  code: string | null | undefined,
  aliases: readonly string[],
): Promise<RecipeSqlAnalysis> {
  if (code === null || code === undefined || code.trim() === '') throw new AppError('40-50004');
  if (code.length > MAX_ANALYSED_CODE_LENGTH)
    throw validationError({ code: `must be at most ${MAX_ANALYSED_CODE_LENGTH} characters` });
  const nul = code.indexOf('\u0000');
  if (nul >= 0) {
    // DuckDB reads text up to a NUL: what follows would escape the analysis, whatever the engine did with it.
    const cause = 'the code holds a NUL character (U+0000), where DuckDB would stop reading it';
    throw new AppError('40-50001', { extraDetails: { cause, ...location(code, [...code.slice(0, nul)].length) } });
  }
  const parsed = await serializeSql(code);
  if (parsed.error) throw await parseFailure(code, parsed);
  if (parsed.statements.length === 0) throw new AppError('40-50004');
  if (parsed.statements.length > 1) {
    throw new AppError('40-50002', {
      extraDetails: { cause: `a recipe is one query; DuckDB reads ${parsed.statements.length} statements` },
    });
  }
  const tree = readQueryTree(parsed.statements[0]!);
  checkConstructs(tree);
  checkFunctions(tree);
  return {
    statement: 'SELECT',
    referenced_aliases: referencedAliases(tree, aliases),
    ctes: [...tree.ctes],
    functions: [...new Set(tree.functions.map((call) => call.name))].sort(),
    set_operations: [...tree.setOperations],
    subqueries: tree.subqueries,
  };
}

type ParseError = Extract<SerializedSql, { error: true }>;

/** `SELECT * EXCEPT (a, b)`, as BigQuery and Spark write what DuckDB calls EXCLUDE. */
export const STAR_EXCEPT = /\*\s*EXCEPT\s*\(/i;

async function parseFailure(code: string, parsed: ParseError): Promise<AppError> {
  if (parsed.error_type === 'not implemented') {
    // json_serialize_sql serializes queries only: anything else is a statement a recipe cannot be.
    const keyword = firstKeyword(code);
    return new AppError('40-50002', {
      extraDetails: {
        cause: `a recipe is a query (SELECT, WITH, FROM, VALUES); DuckDB reads ${keyword ? `a ${keyword} statement` : 'another statement'}`,
      },
    });
  }
  // Rewritten with EXCLUDE, the code parses: the one thing wrong was the star's EXCEPT.
  if (STAR_EXCEPT.test(code)) {
    const rewritten = await serializeSql(code.replace(new RegExp(STAR_EXCEPT.source, 'gi'), '* EXCLUDE ('));
    if (!rewritten.error)
      return new AppError('40-50007', {
        extraDetails: { cause: 'DuckDB leaves columns out of * with EXCLUDE: SELECT * EXCLUDE (a, b)' },
      });
  }
  return new AppError('40-50001', {
    extraDetails: { cause: parseCause(parsed.error_message), ...location(code, parsed.position) },
  });
}

function parseCause(message: string): string {
  // DuckDB suggests a setting a recipe cannot change.
  if (/max expression depth/i.test(message))
    return 'the query nests expressions or subqueries deeper than DuckDB allows (1000 levels)';
  return message;
}

/** DuckDB's character offset (code points) with its 1-based line and column. */
export function location(code: string, position: number | undefined): Record<string, number> {
  if (position === undefined) return {};
  let line = 1;
  let column = 1;
  let offset = 0;
  for (const character of code) {
    if (offset++ === position) break;
    if (character === '\n') {
      line++;
      column = 1;
    } else column++;
  }
  return { position, line, column };
}

/** The first word of the code after comments and parentheses, to name the statement refused. */
function firstKeyword(code: string): string | undefined {
  const stripped = code.replace(/^(?:\s|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/|\()*/, '');
  return /^[A-Za-z]+/.exec(stripped)?.[0]?.toUpperCase();
}

function checkConstructs(tree: QueryTree): void {
  if (tree.unsupported.length > 0) {
    throw new AppError('40-50002', {
      extraDetails: { cause: `a recipe reads its aliases; it cannot use ${[...new Set(tree.unsupported)].join(', ')}` },
    });
  }
  if (tree.parameters > 0) {
    throw new AppError('40-50001', {
      extraDetails: { cause: 'a recipe has no parameters ($1, ?, $name): nothing would give them a value' },
    });
  }
}

function checkFunctions(tree: QueryTree): void {
  const disallowed = new Set<string>();
  const notUsable = new Set<string>();
  for (const call of tree.functions) {
    const allowed =
      call.kind === 'table'
        ? ALLOWED_TABLE_FUNCTIONS.has(call.name)
        : ALLOWED_FUNCTIONS.has(call.name) ||
          BINDER_FUNCTIONS.has(call.name) ||
          NON_DETERMINISTIC_FUNCTIONS.has(call.name);
    if (!allowed) disallowed.add(call.name);
    else if (
      NON_DETERMINISTIC_FUNCTIONS.has(call.name) ||
      (call.kind === 'scalar' && WINDOW_ONLY_FUNCTIONS.has(call.name))
    )
      notUsable.add(call.name);
  }
  if (disallowed.size > 0) throw new AppError('40-50005', { extraDetails: { functions: [...disallowed].sort() } });
  for (const keyword of tree.clockKeywords) notUsable.add(keyword.toLowerCase());
  if (notUsable.size > 0) {
    const functions = [...notUsable].sort();
    const reasons = functions.map((name) =>
      WINDOW_ONLY_FUNCTIONS.has(name)
        ? `${name} is a window function: it needs an OVER clause`
        : `${name} changes from one run to the next: a recipe gives the same rows on the same data`,
    );
    throw new AppError('40-50003', { extraDetails: { functions, cause: reasons.join('; ') } });
  }
}

/**
 * The aliases the tables read match, or the error that says how they disagree: tables that
 * are neither an alias nor a CTE (40-50006), aliases never read (40-50008), or both at once
 * (20-1054): the code and the alias list name different tables, as when one was renamed.
 */
export function referencedAliases(tree: Pick<QueryTree, 'tables'>, aliases: readonly string[]): string[] {
  const byKey = new Map<string, string>();
  for (const alias of aliases) if (!byKey.has(alias.toLowerCase())) byKey.set(alias.toLowerCase(), alias);
  const read = new Set<string>();
  const unknownTables = new Set<string>();
  for (const table of tree.tables) {
    const alias = table.qualified ? undefined : byKey.get(table.name.toLowerCase());
    if (alias !== undefined) read.add(alias);
    else unknownTables.add(table.name);
  }
  const unknown = [...unknownTables];
  const unread = [...byKey.values()].filter((alias) => !read.has(alias));
  if (unknown.length > 0 && unread.length > 0) {
    throw new AppError('20-1054', {
      params: [[...byKey.values()].join(', '), [...new Set(tree.tables.map((table) => table.name))].join(', ')],
      extraDetails: { unknown_tables: unknown, unreferenced_aliases: unread },
    });
  }
  if (unknown.length > 0)
    throw new AppError('40-50006', { extraDetails: { tables: unknown, aliases: [...byKey.values()] } });
  if (unread.length > 0)
    throw new AppError('40-50008', { params: [unread.join(', ')], extraDetails: { aliases: unread } });
  return [...byKey.values()].filter((alias) => read.has(alias));
}
