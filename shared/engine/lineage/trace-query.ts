import type { Json } from '../recipe-sql-tree';
import { DependencySet, type Dependency, type How } from '../../model/lineage-dependencies';
import { expressionReads, type ExpressionContext } from './trace-expression';
import { traceFrom, type FromContext } from './trace-from';
import {
  asList,
  findCte,
  isObject,
  lower,
  text,
  type Ctes,
  type JsonObject,
  type Relation,
  type Scope,
  type TracedColumn,
} from './trace-scope';
import { expandStar } from './trace-star';

/**
 * Queries traced: a SELECT's columns from its FROM scope, set operations by position (or by
 * name), recursive CTEs to their fixed point, and the dependencies of the whole query (WHERE,
 * HAVING, QUALIFY: filter; GROUP BY: group_by; ORDER BY: sort; joins: join).
 */

const EMPTY_SCOPE: Scope = { entries: [], merged: new Map() };

/** Where a query is traced: its inputs, the CTEs in scope, the scope around it (correlated subqueries). */
export interface QueryContext {
  readonly inputs: FromContext['inputs'];
  readonly ctes?: Ctes;
  readonly outer?: Scope;
}

/** A query node (SELECT_NODE, SET_OPERATION_NODE, RECURSIVE_CTE_NODE) or a statement's `{ node }`, traced. */
export function traceQuery(value: Json, context: QueryContext): Relation {
  const node = isObject(value) && isObject(value.node) ? value.node : value;
  if (!isObject(node)) return unknownRelation('a query the tracer cannot read');
  const ctes = withCtes(node, context);
  const inner = { ...context, ctes };
  switch (text(node.type)) {
    case 'SELECT_NODE':
      return traceSelect(node, inner);
    case 'SET_OPERATION_NODE':
      return withOrder(node, setOperation(node, inner), inner);
    case 'RECURSIVE_CTE_NODE':
      return recursiveCte(node, inner);
    default:
      return unknownRelation(`a ${text(node.type) || 'query'} node`);
  }
}

export const unknownRelation = (reason: string): Relation => ({ columns: [], indirect: [], open: { reason } });

/** The CTEs of `node`, each traced with those defined before it. */
function withCtes(node: JsonObject, context: QueryContext): Ctes | undefined {
  let ctes = context.ctes;
  const entries = isObject(node.cte_map) ? asList(node.cte_map.map) : [];
  for (const entry of entries) {
    if (!isObject(entry) || !isObject(entry.value)) continue;
    const name = lower(text(entry.key));
    const body = entry.value.query ?? null;
    const relation = traceQuery(body, { ...context, ctes });
    const aliases = asList(entry.value.aliases).map(text);
    ctes = { name, relation: renamed(relation, aliases), parent: ctes };
  }
  return ctes;
}

/** The relation with its first columns renamed (WITH t(a, b) AS ..., FROM x AS t(a, b)). */
export function renamed(relation: Relation, names: readonly string[]): Relation {
  if (names.length === 0) return relation;
  return {
    ...relation,
    columns: relation.columns.map((column, index) =>
      index < names.length ? { ...column, name: names[index]! } : column,
    ),
  };
}

function expressionContext(scope: Scope, context: QueryContext, outputs?: readonly TracedColumn[]): ExpressionContext {
  return {
    scope,
    outputs,
    subquery: (node, outer) => traceQuery(node, { ...context, outer }),
  };
}

function fromContext(context: QueryContext): FromContext {
  return {
    inputs: context.inputs,
    cte: (name) => findCte(context.ctes, name),
    subquery: (node, outer) => traceQuery(node, { ...context, outer }),
  };
}

/** What an indirect clause reads, added to `into`; its unknowns too. */
function addIndirect(expression: Json, how: How, context: ExpressionContext, into: DependencySet, unknown: string[]) {
  const reads = expressionReads(expression, how, context);
  into.addAll(reads.dependencies.list());
  unknown.push(...reads.unknown);
}

function traceSelect(node: JsonObject, context: QueryContext): Relation {
  const from = traceFrom(node.from_table ?? null, fromContext(context), context.outer);
  const scope: Scope = { ...from.scope, outer: context.outer };
  const expressions = expressionContext(scope, context);
  const columns: TracedColumn[] = [];
  let open: Relation['open'];
  for (const item of asList(node.select_list)) {
    if (isObject(item) && text(item.class) === 'STAR') {
      const star = expandStar(item, scope, expressions);
      columns.push(...star.columns);
      open ??= star.open;
      continue;
    }
    const reads = expressionReads(item, 'copied', expressions);
    columns.push(column(outputName(item), reads.dependencies.list(), reads.unknown));
  }
  const indirect = new DependencySet();
  indirect.addAll(from.indirect);
  const unknown: string[] = [];
  const clauses = expressionContext(scope, context, columns);
  for (const key of ['where_clause', 'having', 'qualify'] as const)
    if (isObject(node[key])) addIndirect(node[key], 'filter', clauses, indirect, unknown);
  for (const group of asList(node.group_expressions))
    addIndirect(byPosition(group, columns), 'group_by', clauses, indirect, unknown);
  if (text(node.aggregate_handling) === 'FORCE_AGGREGATES') {
    // GROUP BY ALL: every select-list item without an aggregate is a group key.
    for (const item of columns)
      if (!item.dependencies.some((dependency) => dependency.how === 'aggregated'))
        indirect.addAll(item.dependencies, 'group_by');
  }
  const relation = {
    columns: unknown.length > 0 ? columns.map((item) => noteUnknown(item, unknown)) : columns,
    indirect: indirect.list(),
    open,
  };
  return withOrder(node, relation, { ...context, outer: scope });
}

/** ORDER BY and DISTINCT ON: sort and group_by dependencies of the whole query, read against its own columns too. */
function withOrder(node: JsonObject, relation: Relation, context: QueryContext): Relation {
  const modifiers = asList(node.modifiers).filter(isObject);
  if (modifiers.length === 0) return relation;
  const indirect = new DependencySet();
  indirect.addAll(relation.indirect);
  const unknown: string[] = [];
  const scope = context.outer ?? EMPTY_SCOPE;
  const expressions = expressionContext(scope, { ...context, outer: scope.outer }, relation.columns);
  for (const modifier of modifiers) {
    const type = text(modifier.type);
    if (type === 'ORDER_MODIFIER')
      for (const order of asList(modifier.orders))
        if (isObject(order))
          addIndirect(byPosition(order.expression ?? null, relation.columns), 'sort', expressions, indirect, unknown);
    if (type === 'DISTINCT_MODIFIER')
      for (const target of asList(modifier.distinct_on_targets))
        addIndirect(byPosition(target, relation.columns), 'group_by', expressions, indirect, unknown);
  }
  const columns = unknown.length > 0 ? relation.columns.map((item) => noteUnknown(item, unknown)) : relation.columns;
  return { ...relation, columns, indirect: indirect.list() };
}

/** ORDER BY 2, GROUP BY 1: an integer constant names an output column; it is traced as that column's name. */
function byPosition(expression: Json, columns: readonly TracedColumn[]): Json {
  if (!isObject(expression) || text(expression.class) !== 'CONSTANT' || !isObject(expression.value)) return expression;
  const position = expression.value.value;
  if (typeof position !== 'number' || !Number.isInteger(position)) return expression;
  const target = columns[position - 1];
  return target ? { class: 'POSITION', dependencies: target.dependencies.map((item) => ({ ...item })) } : expression;
}

function setOperation(node: JsonObject, context: QueryContext): Relation {
  const left = traceQuery(node.left ?? null, context);
  const right = traceQuery(node.right ?? null, context);
  const type = text(node.setop_type);
  const byName = type.endsWith('_BY_NAME');
  // EXCEPT and INTERSECT keep the left side's rows: the right side only decides which.
  const rightHow: How | undefined = type.startsWith('EXCEPT') || type.startsWith('INTERSECT') ? 'filter' : undefined;
  return combine(left, right, byName, rightHow);
}

/** Two sides combined by position (or name): each output column reads what both sides' columns read. */
function combine(left: Relation, right: Relation, byName: boolean, rightHow?: How): Relation {
  const indirect = new DependencySet();
  indirect.addAll(left.indirect);
  indirect.addAll(right.indirect, rightHow);
  const columns = left.columns.map((leftColumn, index) => {
    const rightColumn = byName
      ? right.columns.find(
          (candidate) =>
            candidate.name !== null && leftColumn.name !== null && lower(candidate.name) === lower(leftColumn.name),
        )
      : right.columns[index];
    const dependencies = new DependencySet();
    dependencies.addAll(leftColumn.dependencies);
    if (rightColumn && rightHow) indirect.addAll(rightColumn.dependencies, rightHow);
    else if (rightColumn) dependencies.addAll(rightColumn.dependencies);
    const unknown = [leftColumn.unknown, rightColumn?.unknown].filter(
      (reason): reason is string => reason !== undefined,
    );
    return column(leftColumn.name, dependencies.list(), unknown);
  });
  if (byName)
    for (const rightColumn of right.columns)
      if (
        !left.columns.some(
          (candidate) =>
            candidate.name !== null && rightColumn.name !== null && lower(candidate.name) === lower(rightColumn.name),
        )
      )
        columns.push(rightColumn);
  return { columns, indirect: indirect.list(), open: left.open ?? right.open };
}

/**
 * WITH RECURSIVE: the anchor's columns, then the recursive term read with the CTE standing for
 * what is known so far, until nothing new is found (each round only adds dependencies, of
 * which there are finitely many).
 */
function recursiveCte(node: JsonObject, context: QueryContext): Relation {
  const name = lower(text(node.cte_name));
  const aliases = asList(node.aliases).map(text);
  let known = renamed(traceQuery(node.left ?? null, context), aliases);
  for (let round = 0; round < 8; round++) {
    const right = traceQuery(node.right ?? null, { ...context, ctes: { name, relation: known, parent: context.ctes } });
    const next = renamed(combine(known, right, false), aliases);
    if (size(next) === size(known)) return next;
    known = next;
  }
  return known;
}

const size = (relation: Relation): number =>
  relation.indirect.length + relation.columns.reduce((total, item) => total + item.dependencies.length, 0);

function column(name: string | null, dependencies: Dependency[], unknown: readonly string[]): TracedColumn {
  const reasons = [...new Set(unknown)];
  return reasons.length > 0 ? { name, dependencies, unknown: reasons.join('; ') } : { name, dependencies };
}

/** A clause of the whole query read something the tracer cannot place: every column may depend on it. */
function noteUnknown(item: TracedColumn, unknown: readonly string[]): TracedColumn {
  return column(item.name, [...item.dependencies], [...(item.unknown ? [item.unknown] : []), ...unknown]);
}

/** The name DuckDB gives a select-list item: its alias, a column's own name, else null (named when bound). */
function outputName(item: Json): string | null {
  if (!isObject(item)) return null;
  const alias = text(item.alias);
  if (alias !== '') return alias;
  if (text(item.class) === 'COLUMN_REF') return text(asList(item.column_names).at(-1) ?? null) || null;
  return null;
}
