import {
  type QueryContext,
  type RootQueryContext,
  StatementDefaultContext,
} from 'dt-sql-parser/dist/lib/trino/TrinoSqlParser';
import { AppError, validationError } from '../../errors/app-error';
import {
  location,
  MAX_ANALYSED_CODE_LENGTH,
  referencedAliases,
  STAR_EXCEPT,
  type RecipeSqlAnalysis,
} from '../recipe-sql';
import { parseTrinoSql } from './trino-parse';
import { readTrinoQuery, type TrinoQueryTree } from './trino-tree';

/**
 * The analyzer of `trino-sql` recipes (Athena's dialect): the rules of the DuckDB analyzer
 * (recipe-sql.ts) where they apply, with the same codes, over the tree of Trino's own grammar
 * (trino-parse.ts). In the order they are checked: 40-50004 no code; 10-1400 code over
 * MAX_ANALYSED_CODE_LENGTH; 40-50001 a NUL character; 40-50007 `SELECT * EXCEPT (...)`;
 * 40-50001 invalid syntax (or nesting past MAX_TRINO_NESTING); 40-50002 not exactly one query,
 * `WITH FUNCTION`, table functions; 40-50001 identifiers Trino refuses, parameters; 40-50005
 * functions of another catalogue or schema, session keywords; 40-50003 non-deterministic or
 * window-only functions used wrongly; 40-50006, 20-1054 or 40-50008 when the aliases and the
 * tables read disagree: a table with a catalogue or schema (`information_schema.tables`,
 * `awsdatacatalog.db.t`) or a quoted path (`"s3://bucket/x"`) is never an alias.
 */

/** Functions whose answer changes from one run to the next (Trino's, lower case). */
const NON_DETERMINISTIC = new Set(['rand', 'random', 'uuid', 'now', 'shuffle', 'current_timezone']);

/** Functions that exist only with an OVER clause. */
const WINDOW_ONLY = new Set([
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
]);

/** Analyses Trino `code` against the recipe's `aliases`, throwing the AppError of the first rule it breaks. */
export function analyseTrinoSql(code: string | null | undefined, aliases: readonly string[]): RecipeSqlAnalysis {
  return analyseTrinoQuery(code, aliases).analysis;
}

/** analyseTrinoSql, with the query it read (for the column-lineage tree stored with a version). */
export function analyseTrinoQuery(
  code: string | null | undefined,
  aliases: readonly string[],
): { readonly analysis: RecipeSqlAnalysis; readonly query: QueryContext } {
  if (code === null || code === undefined || code.trim() === '') throw new AppError('40-50004');
  if (code.length > MAX_ANALYSED_CODE_LENGTH)
    throw validationError({ code: `must be at most ${MAX_ANALYSED_CODE_LENGTH} characters` });
  const nul = code.indexOf('\u0000');
  if (nul >= 0) {
    const cause = 'the code holds a NUL character (U+0000)';
    throw new AppError('40-50001', { extraDetails: { cause, ...location(code, [...code.slice(0, nul)].length) } });
  }
  const parsed = parseTrinoSql(code);
  if (parsed.error) {
    if (STAR_EXCEPT.test(code))
      throw new AppError('40-50007', {
        extraDetails: { cause: 'Trino cannot leave columns out of *: name the columns the query keeps' },
      });
    const { message, position, line, column } = parsed;
    throw new AppError('40-50001', { extraDetails: { cause: message, position, line, column } });
  }
  if (parsed.statements.length === 0) throw new AppError('40-50004');
  if (parsed.statements.length > 1)
    throw new AppError('40-50002', {
      extraDetails: { cause: `a recipe is one query; Trino reads ${parsed.statements.length} statements` },
    });
  const statement = parsed.statements[0]!.statement();
  if (!(statement instanceof StatementDefaultContext)) {
    const keyword = statement.start?.text?.toUpperCase();
    throw new AppError('40-50002', {
      extraDetails: {
        cause: `a recipe is a query (SELECT, WITH, TABLE, VALUES); Trino reads ${keyword ? `a ${keyword} statement` : 'another statement'}`,
      },
    });
  }
  const root: RootQueryContext = statement.rootQuery();
  if (root.withFunction())
    throw new AppError('40-50002', {
      extraDetails: { cause: 'a recipe reads its aliases; it cannot define functions (WITH FUNCTION)' },
    });
  const tree = readTrinoQuery(root.query());
  checkConstructs(tree);
  checkFunctions(tree);
  const analysis: RecipeSqlAnalysis = {
    statement: 'SELECT',
    referenced_aliases: referencedAliases(tree, aliases),
    ctes: [...tree.ctes],
    functions: [...new Set(tree.functions.map((call) => call.name))].sort(),
    set_operations: [...tree.setOperations],
    subqueries: tree.subqueries,
  };
  return { analysis, query: root.query() };
}

function checkConstructs(tree: TrinoQueryTree): void {
  if (tree.unsupported.length > 0)
    throw new AppError('40-50002', {
      extraDetails: { cause: `a recipe reads its aliases; it cannot use ${[...new Set(tree.unsupported)].join(', ')}` },
    });
  if (tree.badIdentifiers.length > 0)
    throw new AppError('40-50001', { extraDetails: { cause: tree.badIdentifiers.join('; ') } });
  if (tree.parameters > 0)
    throw new AppError('40-50001', {
      extraDetails: { cause: 'a recipe has no parameters (?): nothing would give them a value' },
    });
}

function checkFunctions(tree: TrinoQueryTree): void {
  const disallowed = [...new Set([...tree.qualifiedFunctions, ...tree.sessionKeywords])].sort();
  if (disallowed.length > 0)
    throw new AppError('40-50005', {
      extraDetails: {
        functions: disallowed,
        cause:
          'a recipe calls the engine’s own functions by their plain names, and reads neither its session nor another catalogue or schema',
      },
    });
  const notUsable = new Set<string>(tree.clockKeywords);
  for (const call of tree.functions) {
    if (NON_DETERMINISTIC.has(call.name) || (call.kind === 'scalar' && WINDOW_ONLY.has(call.name)))
      notUsable.add(call.name);
  }
  if (notUsable.size > 0) {
    const functions = [...notUsable].sort();
    const reasons = functions.map((name) =>
      WINDOW_ONLY.has(name)
        ? `${name} is a window function: it needs an OVER clause`
        : `${name} changes from one run to the next: a recipe gives the same rows on the same data`,
    );
    throw new AppError('40-50003', { extraDetails: { functions, cause: reasons.join('; ') } });
  }
}
