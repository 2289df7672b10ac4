import { serializeSql } from '../recipe-sql-parse';
import type { Json } from '../recipe-sql-tree';
import type { Dependency } from '../../model/lineage-dependencies';
import type { TracedInput } from './trace-from';
import { traceQuery } from './trace-query';
import { lower } from './trace-scope';

export type { TracedInput } from './trace-from';

/**
 * Column lineage of one recipe (docs/lineage.md): for each output column, the input columns
 * it reads and how, from DuckDB's own parse tree (json_serialize_sql, as the analyzer reads it)
 * and the inputs' columns. What the tracer cannot follow is said (`unknown`), never guessed.
 */

/** One output column: its position (1-based), its name, what it reads. */
export interface ColumnLineage {
  readonly position: number;
  /** Null: an unaliased expression, which DuckDB names when it binds the query (a run's output shows the name). */
  readonly name: string | null;
  readonly dependencies: readonly Dependency[];
  /** Why it may read more than `dependencies` says. */
  readonly unknown?: string;
}

export interface RecipeLineage {
  readonly columns: readonly ColumnLineage[];
  /** What decides the rows of every column: filters, joins, grouping, ordering. */
  readonly indirect: readonly Dependency[];
  /** Why the column list itself is not all known (columns after the known ones may exist). */
  readonly unknown?: string;
}

/** The lineage of one parsed statement (an element of json_serialize_sql's `statements`) over `inputs`. */
export function traceStatement(statement: Json, inputs: readonly TracedInput[]): RecipeLineage {
  const byAlias = new Map(inputs.map((input) => [lower(input.alias), input]));
  const relation = traceQuery(statement, { inputs: byAlias });
  const columns = relation.columns.map((column, index) => ({
    position: index + 1,
    name: column.name,
    dependencies: column.dependencies,
    ...(column.unknown === undefined ? {} : { unknown: column.unknown }),
  }));
  return {
    columns,
    indirect: relation.indirect,
    ...(relation.open === undefined ? {} : { unknown: `the columns of ${relation.open.reason}` }),
  };
}

/** The lineage of recipe `code` over `inputs`: parsed by DuckDB's parser, never bound or run. */
export async function traceRecipe(code: string, inputs: readonly TracedInput[]): Promise<RecipeLineage> {
  const parsed = await serializeSql(code);
  if (parsed.error || parsed.statements.length !== 1)
    return { columns: [], indirect: [], unknown: 'code the analyzer would refuse: no single query to trace' };
  return traceStatement(parsed.statements[0]!, inputs);
}

/**
 * The lineage of a trino-sql version over `inputs`, from the tree stored with it when it was
 * saved (engine/trino/trino-lineage-tree.ts; the parser stays out of the lineage routes). An
 * unnamed output column is named as Trino names it: `_col` and its 0-based position.
 */
export function traceTrinoTree(stored: string | undefined, inputs: readonly TracedInput[]): RecipeLineage {
  if (stored === undefined)
    return { columns: [], indirect: [], unknown: 'a trino-sql version saved before it was traced: save it again' };
  const saved = JSON.parse(stored) as { readonly tree?: Json; readonly unknown?: string };
  if (saved.tree === undefined) return { columns: [], indirect: [], unknown: saved.unknown ?? 'no tree to trace' };
  const lineage = traceStatement(saved.tree, inputs);
  return {
    ...lineage,
    columns: lineage.columns.map((column) => ({ ...column, name: column.name ?? `_col${column.position - 1}` })),
  };
}
