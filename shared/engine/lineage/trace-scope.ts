import type { Json } from '../recipe-sql-tree';
import type { Dependency } from '../../model/lineage-dependencies';

/**
 * What the tracer knows at a point of a query: the relations in scope (FROM items by their
 * names), the CTEs, the scopes around it (correlated subqueries, LATERAL). Names are matched
 * ignoring case, as DuckDB matches them.
 */

export type JsonObject = { readonly [key: string]: Json };

export const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const text = (value: Json | undefined): string => (typeof value === 'string' ? value : '');
export const asList = (value: Json | undefined): readonly Json[] =>
  Array.isArray(value) ? (value as readonly Json[]) : [];
export const lower = (name: string): string => name.toLowerCase();

/** One column of a relation: its name (null: an unaliased expression DuckDB names at bind time) and what it reads. */
export interface TracedColumn {
  readonly name: string | null;
  readonly dependencies: readonly Dependency[];
  /** Why the tracer cannot say everything the column reads; its dependencies are what it could. */
  readonly unknown?: string;
}

/** A relation: the columns of a query or a FROM item, and the dependencies of the whole (filters, joins...). */
export interface Relation {
  readonly columns: readonly TracedColumn[];
  readonly indirect: readonly Dependency[];
  /**
   * The column list is not all known: an input whose schema is not known, a table function,
   * a PIVOT. `input` names the recipe input whose columns a name resolves to (its schema only
   * is missing); without it a name read from here is unknown.
   */
  readonly open?: { readonly reason: string; readonly input?: string };
}

/** A relation as a FROM clause names it. */
export interface ScopeEntry {
  /** Lower case; null for a FROM item without a name (a VALUES list, say). */
  readonly name: string | null;
  readonly relation: Relation;
  /** Read in a join condition only (the right side of a SEMI or ANTI join): not in *. */
  readonly hidden?: boolean;
}

export interface Scope {
  readonly entries: readonly ScopeEntry[];
  /** Columns a USING join merged, lower case: * shows them once, from the entry given. */
  readonly merged: ReadonlyMap<string, TracedColumn>;
  /** The scope around a subquery (correlated references) or a LATERAL item. */
  readonly outer?: Scope;
}

/** CTEs visible at a point: innermost first. */
export interface Ctes {
  readonly name: string;
  readonly relation: Relation;
  readonly parent?: Ctes;
}

export function findCte(ctes: Ctes | undefined, name: string): Relation | undefined {
  for (let link = ctes; link; link = link.parent) if (link.name === name) return link.relation;
  return undefined;
}

/** What a column reference resolves to: columns (several for a merged USING column), or why it cannot. */
export type Resolution =
  { readonly columns: readonly TracedColumn[]; readonly field?: true } | { readonly unknown: string };

function columnsNamed(relation: Relation, name: string): TracedColumn[] {
  return relation.columns.filter((column) => column.name !== null && lower(column.name) === name);
}

/** A name read from an open relation: the input's column when the relation stands for one input. */
function fromOpen(relation: Relation, name: string, written: string): Resolution | undefined {
  if (!relation.open) return undefined;
  if (relation.open.input === undefined) return { unknown: `"${written}" is read from ${relation.open.reason}` };
  return {
    columns: [{ name: written, dependencies: [{ input: relation.open.input, column: written, how: 'copied' }] }],
  };
}

/** `name` in one scope (no outer): known columns first, then a single open relation. */
function inScope(scope: Scope, name: string, written: string): Resolution | undefined {
  const merged = scope.merged.get(name);
  if (merged) return { columns: [merged] };
  const found = scope.entries.flatMap((entry) => columnsNamed(entry.relation, name));
  if (found.length > 0) return { columns: found };
  const open = scope.entries.filter((entry) => entry.relation.open);
  if (open.length === 1) return fromOpen(open[0]!.relation, name, written);
  if (open.length > 1)
    return { unknown: `"${written}" may be a column of any of several inputs whose columns are not known` };
  return undefined;
}

/**
 * A COLUMN_REF's names resolved: `t.c` (a FROM item's column), `c`, `t.c.f` and `c.f`
 * (fields of a struct column, a transformation of it), innermost scope first.
 */
export function resolveColumn(scope: Scope, names: readonly string[]): Resolution {
  const written = names.join('.');
  for (let current: Scope | undefined = scope; current; current = current.outer) {
    if (names.length >= 2) {
      const entry = current.entries.find((candidate) => candidate.name === lower(names[0]!));
      if (entry) {
        const column = lower(names[1]!);
        const found = columnsNamed(entry.relation, column);
        const resolved: Resolution | undefined =
          found.length > 0 ? { columns: found } : fromOpen(entry.relation, column, names[1]!);
        if (!resolved) return { unknown: `"${written}": ${names[0]} has no column ${names[1]}` };
        return 'columns' in resolved && names.length > 2 ? { ...resolved, field: true } : resolved;
      }
    }
    const head = inScope(current, lower(names[0]!), names[0]!);
    if (head) return 'columns' in head && names.length > 1 ? { ...head, field: true } : head;
  }
  return { unknown: `"${written}" is no column the tracer found in scope` };
}
