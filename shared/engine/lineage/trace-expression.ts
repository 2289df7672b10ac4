import type { Json } from '../recipe-sql-tree';
import { aggregatesValues } from './aggregate-functions';
import { DependencySet, HOWS, type Dependency, type How } from '../../model/lineage-dependencies';
import {
  asList,
  isObject,
  lower,
  resolveColumn,
  text,
  type JsonObject,
  type Relation,
  type Scope,
  type TracedColumn,
} from './trace-scope';

/**
 * The input columns an expression reads, and how. Walked with an explicit stack, as the
 * analyzer walks the tree (recipe-sql-tree.ts): hostile nesting cannot overflow the call stack.
 */

/** What an expression is traced in. */
export interface ExpressionContext {
  readonly scope: Scope;
  /** A subquery in an expression, traced with this scope around it. */
  readonly subquery: (node: Json, outer: Scope) => Relation;
  /**
   * Output columns a name may also mean (DuckDB reads select-list aliases in WHERE, GROUP BY,
   * HAVING and ORDER BY), and positions (ORDER BY 2): only where those clauses are traced.
   */
  readonly outputs?: readonly TracedColumn[];
}

/** What an expression reads: its dependencies, and why some may be missing. */
export interface ExpressionReads {
  readonly dependencies: DependencySet;
  readonly unknown: string[];
}

interface Frame {
  readonly value: Json;
  readonly how: How;
  /** Lambda parameters in scope (x in x -> x + 1), lower case: not columns. */
  readonly lambdas: ReadonlySet<string>;
}

/** Expressions of a value that compute on it: a bare column copied, anything else transforms it. */
const transformedFrom = (how: How): How => (how === 'copied' ? 'transformed' : how);

/** Window-function keys that feed the window, not the value. */
const WINDOW_SHAPE_KEYS = new Set(['partitions', 'orders']);

/** The expressions of `value` (an object or list of them) with `how`, pushed for the walk. */
function pushChildren(
  stack: Frame[],
  value: JsonObject,
  how: How,
  lambdas: ReadonlySet<string>,
  skip = new Set<string>(),
) {
  for (const [key, child] of Object.entries(value).reverse()) {
    if (skip.has(key)) continue;
    if (isObject(child) || Array.isArray(child)) stack.push({ value: child, how, lambdas });
  }
}

/** Adds what `names` resolves to, as `how`; a name DuckDB reads that the tracer cannot place is noted. */
function readColumn(names: readonly string[], how: How, context: ExpressionContext, reads: ExpressionReads): void {
  const resolved = resolveColumn(context.scope, names);
  if ('columns' in resolved) {
    const as = resolved.field ? transformedFrom(how) : how;
    for (const column of resolved.columns) {
      reads.dependencies.addAll(column.dependencies, as);
      if (column.unknown) reads.unknown.push(column.unknown);
    }
    return;
  }
  // A select-list alias, where DuckDB reads one.
  const alias = names.length === 1 ? outputNamed(context, names[0]!) : undefined;
  if (alias) {
    reads.dependencies.addAll(alias.dependencies, how);
    if (alias.unknown) reads.unknown.push(alias.unknown);
    return;
  }
  reads.unknown.push(resolved.unknown);
}

const outputNamed = (context: ExpressionContext, name: string): TracedColumn | undefined =>
  context.outputs?.find((column) => column.name !== null && lower(column.name) === lower(name));

/** Adds what a subquery in an expression reads: its values as `how`, its own filters and joins as they are. */
function readSubquery(node: JsonObject, how: How, context: ExpressionContext, reads: ExpressionReads): void {
  const relation = context.subquery(node.subquery ?? null, context.scope);
  const kind = text(node.subquery_type);
  // EXISTS and IN decide whether a row passes; a scalar subquery gives a value.
  const valueHow: How = kind === 'SCALAR' ? transformedFrom(how) : indirectOr(how, 'conditional');
  for (const column of relation.columns) {
    reads.dependencies.addAll(column.dependencies, valueHow);
    if (column.unknown) reads.unknown.push(column.unknown);
  }
  reads.dependencies.addAll(relation.indirect);
  if (relation.open && relation.open.input === undefined) reads.unknown.push(relation.open.reason);
}

/**
 * What `expression` reads when used as `how`: `copied` for a select-list item (a bare column
 * stays copied, anything computed is transformed), an indirect kind for a WHERE, GROUP BY,
 * ORDER BY, join condition.
 */
export function expressionReads(expression: Json, how: How, context: ExpressionContext): ExpressionReads {
  const reads: ExpressionReads = { dependencies: new DependencySet(), unknown: [] };
  const stack: Frame[] = [{ value: expression, how, lambdas: new Set() }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { value, lambdas } = frame;
    if (Array.isArray(value)) {
      const items: readonly Json[] = value;
      // Reversed, so that the stack pops them in the order they are written: dependencies are listed as read.
      for (let index = items.length - 1; index >= 0; index--) stack.push({ ...frame, value: items[index]! });
      continue;
    }
    if (!isObject(value)) continue;
    const expressionClass = text(value.class);
    const inner = transformedFrom(frame.how);
    switch (expressionClass) {
      case 'COLUMN_REF': {
        const names = asList(value.column_names).map(text);
        if (names.length === 1 && lambdas.has(lower(names[0]!))) break;
        readColumn(names, frame.how, context, reads);
        break;
      }
      case 'CONSTANT':
      case 'PARAMETER':
        break;
      case 'POSITION':
        // ORDER BY 2: the output column's dependencies (trace-query.ts byPosition).
        reads.dependencies.addAll(positionDependencies(value), frame.how);
        break;
      case 'FUNCTION': {
        const name = lower(text(value.function_name));
        const valueHow: How = aggregates(value, name) ? (inner === 'transformed' ? 'aggregated' : inner) : inner;
        stack.push({ value: value.children ?? null, how: valueHow, lambdas });
        // An aggregate's FILTER and ORDER BY decide which values it takes, in what order.
        if (isObject(value.filter))
          stack.push({ value: value.filter, how: indirectOr(frame.how, 'conditional'), lambdas });
        if (isObject(value.order_bys))
          stack.push({ value: value.order_bys, how: indirectOr(frame.how, 'sort'), lambdas });
        break;
      }
      case 'WINDOW': {
        const name = lower(text(value.function_name));
        const valueHow: How = aggregates(value, name) && inner === 'transformed' ? 'aggregated' : inner;
        pushChildren(stack, value, valueHow, lambdas, new Set([...WINDOW_SHAPE_KEYS, 'filter_expr']));
        const shape = indirectOr(frame.how, 'window');
        for (const key of WINDOW_SHAPE_KEYS) stack.push({ value: value[key] ?? null, how: shape, lambdas });
        if (isObject(value.filter_expr))
          stack.push({ value: value.filter_expr, how: indirectOr(frame.how, 'conditional'), lambdas });
        break;
      }
      case 'CASE': {
        const condition = indirectOr(frame.how, 'conditional');
        for (const check of asList(value.case_checks)) {
          if (!isObject(check)) continue;
          stack.push({ value: check.when_expr ?? null, how: condition, lambdas });
          stack.push({ value: check.then_expr ?? null, how: inner, lambdas });
        }
        stack.push({ value: value.else_expr ?? null, how: inner, lambdas });
        break;
      }
      case 'SUBQUERY':
        readSubquery(value, frame.how, context, reads);
        if (isObject(value.child))
          stack.push({ value: value.child, how: indirectOr(frame.how, 'conditional'), lambdas });
        break;
      case 'LAMBDA': {
        const parameters = new Set(lambdas);
        for (const parameter of lambdaParameters(value.lhs ?? null)) parameters.add(parameter);
        stack.push({ value: value.expr ?? null, how: inner, lambdas: parameters });
        break;
      }
      case 'STAR':
        // COLUMNS(...) or * inside an expression (struct_pack(*), COLUMNS('re') + 1): expanded at bind time.
        reads.unknown.push('a * or COLUMNS(...) inside an expression is expanded when DuckDB binds it');
        break;
      default:
        // CAST, comparisons, conjunctions, operators, BETWEEN, COLLATE...: computed from their children.
        if (expressionClass === '') pushChildren(stack, value, frame.how, lambdas);
        else pushChildren(stack, value, inner, lambdas);
    }
  }
  return reads;
}

/** An aggregate: as the tree says (a trino-sql tree marks Trino's, engine/trino/trino-lineage-tree.ts), else DuckDB's. */
const aggregates = (value: JsonObject, name: string): boolean =>
  typeof value.aggregate === 'boolean' ? value.aggregate : aggregatesValues(name);

/** In a value, a condition or window shape is its own indirect kind; under an indirect use, that use. */
const indirectOr = (how: How, kind: How): How =>
  how === 'copied' || how === 'transformed' || how === 'aggregated' ? kind : how;

function positionDependencies(value: JsonObject): Dependency[] {
  return asList(value.dependencies).flatMap((item) =>
    isObject(item) && (HOWS as readonly string[]).includes(text(item.how))
      ? [{ input: text(item.input), column: text(item.column), how: text(item.how) as How }]
      : [],
  );
}

/** The names a lambda's left side binds: x, or (x, i). */
function lambdaParameters(lhs: Json): string[] {
  if (!isObject(lhs)) return [];
  if (text(lhs.class) === 'COLUMN_REF') return asList(lhs.column_names).map((name) => lower(text(name)));
  return asList(lhs.children).flatMap((child) => lambdaParameters(child));
}
