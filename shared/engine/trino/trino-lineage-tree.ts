import { ParserRuleContext, TerminalNode, type ParseTree } from 'antlr4ng';
// The parser's contexts, by name: the walk tells them apart with instanceof.
import * as P from 'dt-sql-parser/dist/lib/trino/TrinoSqlParser';
import { TRINO_AGGREGATE_FUNCTIONS } from '../lineage/aggregate-functions';
import { logger } from '../../log';
import type { Json } from '../recipe-sql-tree';
import { identifierName } from './trino-tree';

/**
 * A Trino query (trino-parse.ts) translated into the tree the column-lineage tracer walks
 * (shared/engine/lineage/trace-*.ts reads DuckDB's json_serialize_sql shape), keeping only what the
 * tracer reads: queries, FROM items, column references, functions (with Trino's aggregates
 * marked), CASE, subqueries, windows, lambdas. Any other expression keeps its children as a
 * computation of them. Made when a trino-sql version is saved, where the parser already runs,
 * and stored with the version (docs/lineage.md): the lineage routes never load the parser.
 */

/** The stored form: the translated query, or why there is none. */
export type TrinoLineageTree = { readonly tree: Json } | { readonly unknown: string };

/** Past this many characters a version stores why, not the tree: the version is copied onto its recipe's item too. */
export const MAX_TRINO_LINEAGE_CHARS = 100_000;

/** A construct the tracer would misread: the whole recipe is unknown, with this reason. */
class Untraceable extends Error {}

type Node = { [key: string]: Json };

/** An identifier as Trino names it: unquoted ones lower case (Trino's identifiers ignore case). */
function name(identifier: P.IdentifierContext): string {
  const value = identifierName(identifier);
  return identifier instanceof P.QuotedIdentifierContext ? value : value.toLowerCase();
}

const ruleChildren = (node: ParseTree): ParserRuleContext[] =>
  node instanceof ParserRuleContext
    ? (node.children ?? []).filter((child): child is ParserRuleContext => child instanceof ParserRuleContext)
    : [];

/** The names of a column reference: its QualifiedName, under a ColumnName or ColumnReference. */
function qualifiedNames(node: ParseTree): string[] {
  let current: ParseTree | undefined = node;
  while (current && !(current instanceof P.QualifiedNameContext)) current = ruleChildren(current)[0];
  return current instanceof P.QualifiedNameContext ? current.identifier().map(name) : [];
}

const columnRef = (names: readonly string[]): Node => ({ class: 'COLUMN_REF', column_names: [...names] });

/** Orders of ORDER BY, OVER (ORDER BY), an aggregate's ORDER BY. */
const orders = (items: readonly P.SortItemContext[]): Json[] =>
  items.map((item) => ({ expression: expression(ruleChildren(item)[0]!) }));

/** A window function's PARTITION BY and ORDER BY, a named window's where OVER names it. */
function windowShape(spec: P.WindowSpecificationContext | null, windows: Windows): Node {
  if (!spec) return { partitions: [], orders: [] };
  const base = spec._existingWindowName ? windows.get(name(spec._existingWindowName)) : undefined;
  const inherited = base ? windowShape(base, windows) : { partitions: [], orders: [] };
  return {
    partitions: [
      ...(inherited.partitions as Json[]),
      ...(spec.partitionBy()?.expression() ?? []).map((item) => expression(item)),
    ],
    orders: [...(inherited.orders as Json[]), ...orders(spec.sortItem())],
  };
}

type Windows = ReadonlyMap<string, P.WindowSpecificationContext>;
/**
 * The named windows (WINDOW w AS ...) of the SELECT being translated, for `OVER w`. Set and
 * restored by selectNode around its own clauses: the walk is synchronous, so no other
 * translation sees them, and threading them through every expression call is not needed.
 */
let currentWindows: Windows = new Map();

function functionCall(node: P.FunctionCallContext): Node {
  const functionName = node.functionName().qualifiedName().identifier().map(name).join('.').toLowerCase();
  const children = node.expression().map((item) => expression(item));
  const aggregate = TRINO_AGGREGATE_FUNCTIONS.has(functionName);
  const filterClause = node.filter()?.whereClause();
  const filter = filterClause ? expression(ruleChildren(filterClause)[0]!) : null;
  const over = node.over();
  if (!over) {
    const sorted = node.sortItem();
    return {
      class: 'FUNCTION',
      function_name: functionName,
      aggregate,
      children,
      ...(filter ? { filter } : {}),
      ...(sorted.length > 0 ? { order_bys: { orders: orders(sorted) } } : {}),
    };
  }
  const named = over.identifier();
  const spec = named ? (currentWindows.get(name(named)) ?? null) : over.windowSpecification();
  if (named && !spec) throw new Untraceable(`the window ${name(named)}, which the query does not define`);
  return {
    class: 'WINDOW',
    function_name: functionName,
    aggregate,
    children,
    ...windowShape(spec, currentWindows),
    ...(filter ? { filter_expr: filter } : {}),
  };
}

function whenChecks(node: P.SimpleCaseContext | P.SearchedCaseContext, operand: Json): Json[] {
  return node.whenClause().map((clause) => {
    const [condition, result] = clause.expression();
    const when = expression(condition!);
    return {
      when_expr: operand === null ? when : { class: 'COMPARE', children: [operand, when] },
      then_expr: expression(result!),
    };
  });
}

/** An expression of Trino's grammar as the tracer reads one. */
function expression(node: ParseTree): Json {
  if (!(node instanceof ParserRuleContext)) return null;
  if (
    node instanceof P.ColumnReferenceContext ||
    node instanceof P.ColumnRefContext ||
    node instanceof P.ColumnNameContext ||
    node instanceof P.JoinColumnReferenceContext
  ) {
    return columnRef(qualifiedNames(node));
  }
  if (node instanceof P.NumericLiteralContext) {
    // GROUP BY 1, ORDER BY 2: an integer names an output column (the tracer reads it so).
    const text = node.getText();
    return { class: 'CONSTANT', value: { value: /^\d+$/.test(text) ? Number(text) : null } };
  }
  if (node instanceof P.FunctionCallContext) return functionCall(node);
  if (node instanceof P.ListAggContext)
    return {
      class: 'FUNCTION',
      function_name: 'listagg',
      aggregate: true,
      children: [expression(node.expression())],
      order_bys: { orders: orders(node.sortItem()) },
      ...(node.filter() ? { filter: expression(ruleChildren(node.filter()!.whereClause())[0]!) } : {}),
    };
  if (node instanceof P.SearchedCaseContext)
    return {
      class: 'CASE',
      case_checks: whenChecks(node, null),
      else_expr: node._elseExpression ? expression(node._elseExpression) : null,
    };
  if (node instanceof P.SimpleCaseContext)
    return {
      class: 'CASE',
      case_checks: whenChecks(node, expression(node._operand!)),
      else_expr: node._elseExpression ? expression(node._elseExpression) : null,
    };
  if (node instanceof P.SubqueryExpressionContext)
    return { class: 'SUBQUERY', subquery_type: 'SCALAR', subquery: query(node.query()) };
  if (node instanceof P.ExistsContext)
    return { class: 'SUBQUERY', subquery_type: 'EXISTS', subquery: query(node.query()) };
  if (node instanceof P.InSubqueryContext || node instanceof P.QuantifiedComparisonContext)
    // `x IN (query)` is a Predicated whose value is its sibling: the enclosing operator reads it.
    return { class: 'SUBQUERY', subquery_type: 'ANY', subquery: query(node.query()) };
  if (node instanceof P.LambdaContext)
    return {
      class: 'LAMBDA',
      lhs: { class: 'ROW', children: node.identifier().map((item) => columnRef([name(item)])) },
      expr: expression(node.expression()),
    };
  if (node instanceof P.ParenthesizedExpressionContext) return expression(ruleChildren(node)[0]!);
  const children = ruleChildren(node);
  const terminals = (node.children ?? []).some((child) => child instanceof TerminalNode);
  // Wrappers of one expression (Expression, Predicated, ValueExpressionDefault...) are that expression.
  if (children.length === 1 && !terminals) return expression(children[0]!);
  return { class: 'OPERATOR', children: children.map(expression) };
}

/** The FROM items of a relation: joins, tables (inputs or CTEs), subqueries, VALUES, UNNEST. */
function relation(node: ParseTree): Node {
  if (node instanceof P.JoinRelationContext) {
    const [left, rightRelation] = node.relation();
    const right = rightRelation ?? node.sampledRelation();
    const criteria = node.joinCriteria();
    const type = (node.joinType()?.getText() ?? '').toUpperCase();
    const joinType = type.startsWith('LEFT')
      ? 'LEFT'
      : type.startsWith('RIGHT')
        ? 'RIGHT'
        : type.startsWith('FULL')
          ? 'FULL'
          : 'INNER';
    const condition = criteria?.booleanExpression() ?? criteria?.joinColumnEquality();
    return {
      type: 'JOIN',
      join_type: joinType,
      ref_type: node.KW_NATURAL() ? 'NATURAL' : node.KW_CROSS() ? 'CROSS' : 'REGULAR',
      left: relation(left!),
      right: relation(right!),
      condition: condition ? expression(condition) : null,
      using_columns: (criteria?.KW_USING() ? criteria.identifier() : []).map(name),
    };
  }
  if (node instanceof P.PatternRecognitionContext && node.KW_MATCH_RECOGNIZE())
    return { type: 'MATCH_RECOGNIZE', alias: '' };
  if (node instanceof P.AliasedRelationContext) {
    const primary = relationPrimary(node.relationPrimary());
    const aliases = node.columnAliases()?.identifier().map(name) ?? [];
    return {
      ...primary,
      ...(node.identifier() ? { alias: name(node.identifier()!) } : {}),
      ...(aliases.length > 0 ? { column_name_alias: aliases } : {}),
    };
  }
  if (node instanceof P.SampledRelationContext || node instanceof P.PatternRecognitionContext)
    return relation(ruleChildren(node)[0]!);
  const children = ruleChildren(node);
  if (children.length === 1) return relation(children[0]!);
  throw new Untraceable(`a FROM item the tracer cannot read (${node.getText().slice(0, 40)})`);
}

function relationPrimary(node: ParseTree): Node {
  const table = node instanceof P.TableNameContext ? node : undefined;
  if (table) {
    const ref = table.tableOrViewName().tableRef();
    if (!ref) throw new Untraceable('a view reference');
    return baseTable(ref);
  }
  if (node instanceof P.SubqueryRelationContext || node instanceof P.LateralContext)
    return { type: 'SUBQUERY', subquery: query(node.query()) };
  if (node instanceof P.UnnestContext) return { type: 'TABLE_FUNCTION', function: { function_name: 'unnest' } };
  if (node instanceof P.ParenthesizedRelationContext) return relation(ruleChildren(node)[0]!);
  const children = ruleChildren(node);
  if (children.length === 1) return relationPrimary(children[0]!);
  throw new Untraceable(`a FROM item the tracer cannot read (${node.getText().slice(0, 40)})`);
}

function baseTable(ref: P.TableRefContext): Node {
  const parts = ref.identifier().map(name);
  return {
    type: 'BASE_TABLE',
    table_name: parts.at(-1)!,
    schema_name: parts.length > 1 ? parts.slice(0, -1).join('.') : '',
  };
}

function selectNode(node: P.QuerySpecificationContext): Node {
  const windows = new Map(node.windowDefinition().map((item) => [name(item.identifier()), item.windowSpecification()]));
  const outerWindows = currentWindows;
  currentWindows = windows;
  try {
    const relations = node.relation().map(relation);
    const from = relations.reduce<Node | null>(
      (left, right) =>
        left === null ? right : { type: 'JOIN', join_type: 'INNER', ref_type: 'CROSS', left, right, condition: null },
      null,
    );
    const groups: Json[] = [];
    const groupBy = node.groupBy();
    const pending: ParseTree[] = groupBy ? [groupBy] : [];
    for (let item = pending.pop(); item; item = pending.pop()) {
      if (item instanceof P.GroupingTermContext) groups.push(expression(ruleChildren(item)[0]!));
      else pending.push(...ruleChildren(item).reverse());
    }
    return {
      type: 'SELECT_NODE',
      select_list: node.selectList().selectItem().map(selectItem),
      from_table: from ?? { type: 'EMPTY' },
      where_clause: node.whereClause() ? expression(ruleChildren(node.whereClause()!)[0]!) : null,
      group_expressions: groups,
      having: node.havingClause() ? expression(ruleChildren(node.havingClause()!)[0]!) : null,
    };
  } finally {
    currentWindows = outerWindows;
  }
}

function selectItem(item: P.SelectItemContext): Json {
  const all = item.tableAllColumns() ?? item.selectAllWithoutTable();
  if (all) {
    if (item.columnAliases()) throw new Untraceable('t.* AS (...), which renames the columns of *');
    const target = item.tableAllColumns()?.primaryExpression();
    return {
      class: 'STAR',
      relation_name: target ? qualifiedNames(target).join('.') : '',
    };
  }
  const value = expression(item.selectLiteralColumnName() ?? item.selectExpressionColumnName()!);
  const alias = item.identifier();
  return alias && isObject(value) ? { ...value, alias: name(alias) } : value;
}

const isObject = (value: Json): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

function queryTerm(node: ParseTree): Node {
  if (node instanceof P.SetOperationContext) {
    const operator = (node._operator?.text ?? '').toUpperCase();
    const all = node.setQuantifier()?.KW_ALL() ? '_ALL' : '';
    return {
      type: 'SET_OPERATION_NODE',
      setop_type: `${operator}${all}`,
      left: queryTerm(node._left!),
      right: queryTerm(node._right!),
    };
  }
  if (node instanceof P.QueryTermDefaultContext || node instanceof P.QueryPrimaryDefaultContext)
    return queryTerm(ruleChildren(node)[0]!);
  if (node instanceof P.QuerySpecificationContext) return selectNode(node);
  if (node instanceof P.SubqueryContext) return queryNoWith(node.queryNoWith());
  if (node instanceof P.TableContext)
    return {
      type: 'SELECT_NODE',
      select_list: [{ class: 'STAR', relation_name: '' }],
      from_table: baseTable(node.tableRef()),
    };
  if (node instanceof P.InlineTableContext) {
    const rows = node.expression().map((row) => {
      const value = unwrap(row);
      return value instanceof P.RowConstructorContext ? value.expression().map(expression) : [expression(row)];
    });
    const width = rows[0]?.length ?? 0;
    // Trino names a VALUES list's columns _col0, _col1...
    const names = Array.from({ length: width }, (_, index) => `_col${index}`);
    return {
      type: 'SELECT_NODE',
      select_list: [{ class: 'STAR', relation_name: '' }],
      from_table: { type: 'EXPRESSION_LIST', values: rows, column_name_alias: names },
    };
  }
  throw new Untraceable(`a query the tracer cannot read (${node.getText().slice(0, 40)})`);
}

/** The single expression under wrappers (Expression, Predicated, ValueExpressionDefault). */
function unwrap(node: ParserRuleContext): ParserRuleContext {
  let current = node;
  for (let children = ruleChildren(current); children.length === 1; children = ruleChildren(current))
    current = children[0]!;
  return current;
}

function queryNoWith(node: P.QueryNoWithContext): Node {
  const term = queryTerm(node.queryTerm());
  const sorted = node.sortItem();
  if (sorted.length === 0) return term;
  const modifiers = Array.isArray(term.modifiers) ? (term.modifiers as readonly Json[]) : [];
  return { ...term, modifiers: [...modifiers, { type: 'ORDER_MODIFIER', orders: orders(sorted) }] };
}

function query(node: P.QueryContext): Node {
  const statement = node instanceof P.QueryStatementContext ? node : undefined;
  if (!statement) throw new Untraceable('a query the tracer cannot read');
  const body = queryNoWith(statement.queryNoWith());
  const withClause = statement.with();
  if (!withClause) return body;
  const map = withClause.namedQuery().map((named) => ({
    key: name(named.identifier()),
    value: { query: { node: query(named.query()) }, aliases: named.columnAliases()?.identifier().map(name) ?? [] },
  }));
  // WITH RECURSIVE: a CTE's reference to itself is read as no input of the recipe (unknown), not followed.
  return { ...body, cte_map: { map } };
}

/** The tree to store with a trino-sql version whose statement's query is `root`. */
export function trinoLineageTree(root: P.QueryContext): TrinoLineageTree {
  try {
    const tree = { node: query(root) };
    return JSON.stringify(tree).length > MAX_TRINO_LINEAGE_CHARS
      ? { unknown: 'the query is larger than a version keeps for tracing' }
      : { tree };
  } catch (error) {
    if (error instanceof Untraceable) return { unknown: error.message };
    if (error instanceof RangeError) return { unknown: 'the query nests too deeply to trace' };
    // Lineage never fails a save: a construct the translation mistook is said, not thrown.
    logger.warn('a trino-sql query could not be translated for column lineage', { error: error as Error });
    return { unknown: 'the tracer could not read this query' };
  }
}
