import type { Json } from '../recipe-sql-tree';
import { DependencySet, type Dependency } from '../../model/lineage-dependencies';
import { expressionReads } from './trace-expression';
import {
  asList,
  isObject,
  lower,
  text,
  type JsonObject,
  type Relation,
  type Scope,
  type ScopeEntry,
  type TracedColumn,
} from './trace-scope';

/**
 * FROM clauses traced: base tables (a recipe input or a CTE), subqueries, joins (their
 * conditions and USING columns read as `join`), VALUES lists. Table functions and PIVOT give
 * relations whose columns are known only when DuckDB binds them: open, never guessed.
 */

/** A recipe input: its alias as declared, and its columns (null: not known when traced). */
export interface TracedInput {
  readonly alias: string;
  readonly columns: readonly string[] | null;
}

export interface FromContext {
  /** The recipe's inputs by lower-case alias. */
  readonly inputs: ReadonlyMap<string, TracedInput>;
  readonly cte: (name: string) => Relation | undefined;
  readonly subquery: (node: Json, outer: Scope | undefined) => Relation;
}

export interface TracedFrom {
  readonly scope: Scope;
  readonly indirect: readonly Dependency[];
}

const NOTHING: TracedFrom = { scope: { entries: [], merged: new Map() }, indirect: [] };

/** An input's relation: each of its columns copied, or open when its columns are not known. */
export function inputRelation(input: TracedInput): Relation {
  if (input.columns === null)
    return {
      columns: [],
      indirect: [],
      open: { reason: `${input.alias}, whose columns are not known`, input: input.alias },
    };
  return {
    columns: input.columns.map((name) => ({
      name,
      dependencies: [{ input: input.alias, column: name, how: 'copied' }],
    })),
    indirect: [],
  };
}

const renamedColumns = (relation: Relation, node: JsonObject): Relation => {
  const names = asList(node.column_name_alias).map(text);
  if (names.length === 0) return relation;
  return {
    ...relation,
    columns: relation.columns.map((column, index) =>
      index < names.length ? { ...column, name: names[index]! } : column,
    ),
  };
};

const entry = (node: JsonObject, fallbackName: string | null, relation: Relation): TracedFrom => {
  const alias = text(node.alias) || fallbackName;
  return {
    scope: {
      entries: [{ name: alias === null ? null : lower(alias), relation: renamedColumns(relation, node) }],
      merged: new Map(),
    },
    // What decided the item's rows (a CTE's WHERE, a subquery's join) decides the query's.
    indirect: relation.indirect,
  };
};

function baseTable(node: JsonObject, context: FromContext): TracedFrom {
  const name = text(node.table_name);
  if (text(node.schema_name) !== '' || text(node.catalog_name) !== '')
    return entry(node, name, { columns: [], indirect: [], open: { reason: `the qualified table ${name}` } });
  const relation = context.cte(lower(name)) ?? inputOf(context, name);
  return entry(node, name, relation);
}

function inputOf(context: FromContext, name: string): Relation {
  const input = context.inputs.get(lower(name));
  return input
    ? inputRelation(input)
    : { columns: [], indirect: [], open: { reason: `${name}, which is no input of the recipe` } };
}

/** VALUES (...), (...): constants, named col0, col1... unless the alias names them. */
function valuesList(node: JsonObject, context: FromContext, outer: Scope | undefined): TracedFrom {
  const rows = asList(node.values).filter(Array.isArray) as readonly (readonly Json[])[];
  const width = rows[0]?.length ?? 0;
  const scope: Scope = outer ?? { entries: [], merged: new Map() };
  const columns: TracedColumn[] = [];
  for (let index = 0; index < width; index++) {
    const dependencies = new DependencySet();
    for (const row of rows)
      dependencies.addAll(
        expressionReads(row[index] ?? null, 'transformed', { scope, subquery: context.subquery }).dependencies.list(),
      );
    columns.push({ name: `col${index}`, dependencies: dependencies.list() });
  }
  return entry(node, null, { columns, indirect: [] });
}

function join(node: JsonObject, context: FromContext, outer: Scope | undefined): TracedFrom {
  const left = traceFrom(node.left ?? null, context, outer);
  // LATERAL: the right side may read the left side's columns.
  const right = traceFrom(node.right ?? null, context, { ...left.scope, outer });
  const joinType = text(node.join_type);
  const hidden = joinType === 'SEMI' || joinType === 'ANTI';
  const rightEntries: ScopeEntry[] = right.scope.entries.map((item) => (hidden ? { ...item, hidden: true } : item));
  const scope: Scope = {
    entries: [...left.scope.entries, ...rightEntries],
    merged: new Map([...left.scope.merged, ...right.scope.merged]),
    outer,
  };
  const indirect = new DependencySet();
  indirect.addAll(left.indirect);
  indirect.addAll(right.indirect);
  const unknown: string[] = [];
  if (isObject(node.condition)) {
    const reads = expressionReads(node.condition, 'join', { scope, subquery: context.subquery });
    indirect.addAll(reads.dependencies.list());
    unknown.push(...reads.unknown);
  }
  const merged = new Map(scope.merged);
  const using = asList(node.using_columns).map(text);
  const natural = text(node.ref_type) === 'NATURAL';
  for (const name of natural ? naturalColumns(left.scope, right.scope) : using) {
    const sides = [left.scope, right.scope].map((side) => sideColumn(side, name));
    for (const column of sides) if (column) indirect.addAll(column.dependencies, 'join');
    // USING keeps one column: the left one, the right one in a RIGHT join, either in a FULL one.
    const kept = joinType === 'RIGHT' ? [sides[1]] : joinType === 'FULL' ? sides : [sides[0]];
    const dependencies = new DependencySet();
    for (const column of kept)
      if (column) dependencies.addAll(column.dependencies, joinType === 'FULL' ? 'transformed' : undefined);
    merged.set(lower(name), { name, dependencies: dependencies.list() });
  }
  if (natural && [left.scope, right.scope].some((side) => side.entries.some((item) => item.relation.open)))
    unknown.push('a NATURAL join over inputs whose columns are not known');
  const entries = unknown.length > 0 ? scope.entries.map((item) => withUnknown(item, unknown)) : scope.entries;
  return { scope: { entries, merged, outer }, indirect: indirect.list() };
}

function withUnknown(item: ScopeEntry, unknown: readonly string[]): ScopeEntry {
  const reason = [...new Set(unknown)].join('; ');
  return {
    ...item,
    relation: {
      ...item.relation,
      columns: item.relation.columns.map((column) => ({ ...column, unknown: column.unknown ?? reason })),
    },
  };
}

function sideColumn(scope: Scope, name: string): TracedColumn | undefined {
  const key = lower(name);
  return (
    scope.merged.get(key) ??
    scope.entries
      .flatMap((item) => item.relation.columns)
      .find((column) => column.name !== null && lower(column.name) === key)
  );
}

/** The columns a NATURAL join matches: the names both sides have. */
function naturalColumns(left: Scope, right: Scope): string[] {
  const names = (scope: Scope) =>
    scope.entries.flatMap((item) =>
      item.relation.columns.flatMap((column) => (column.name === null ? [] : [column.name])),
    );
  const rightNames = new Set(names(right).map(lower));
  return names(left).filter((name) => rightNames.has(lower(name)));
}

/** A FROM item traced into the scope it gives. */
export function traceFrom(value: Json, context: FromContext, outer: Scope | undefined): TracedFrom {
  if (!isObject(value)) return NOTHING;
  switch (text(value.type)) {
    case 'EMPTY':
      return NOTHING;
    case 'BASE_TABLE':
      return baseTable(value, context);
    case 'JOIN':
      return join(value, context, outer);
    case 'SUBQUERY':
      return entry(value, null, context.subquery(value.subquery ?? null, outer));
    case 'EXPRESSION_LIST':
      return valuesList(value, context, outer);
    case 'TABLE_FUNCTION': {
      const name = isObject(value.function) ? text(value.function.function_name) : 'a table function';
      return entry(value, name, {
        columns: [],
        indirect: [],
        open: { reason: `the table function ${name}, whose columns DuckDB names when it binds` },
      });
    }
    case 'PIVOT':
      return entry(value, null, {
        columns: [],
        indirect: [],
        open: { reason: 'a PIVOT or UNPIVOT, whose columns come from the data' },
      });
    default:
      return entry(value, null, {
        columns: [],
        indirect: [],
        open: { reason: `a ${text(value.type) || 'FROM item'} the tracer cannot read` },
      });
  }
}
