/**
 * What a statement's parse tree (DuckDB's json_serialize_sql) holds for the analyzer: table
 * references, CTEs, function calls, set operations, subqueries. The tree is walked with an
 * explicit stack, never by recursion: hostile SQL nested as deep as DuckDB's parser allows
 * cannot overflow the call stack, and the work is linear in the size of the JSON, which the
 * analyzer's code-length bound limits.
 */
import { CLOCK_KEYWORDS } from './recipe-sql-functions';

/** JSON as JSON.parse gives it. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };
type JsonObject = { readonly [key: string]: Json };

export interface FunctionCall {
  /** Lower case, as DuckDB looks it up. */
  readonly name: string;
  /** window: with an OVER clause; table: in a FROM clause. */
  readonly kind: 'scalar' | 'window' | 'table';
}

export interface TableReference {
  /** As written (DuckDB matches table names ignoring case), with its schema and catalog if any. */
  readonly name: string;
  readonly qualified: boolean;
}

export interface QueryTree {
  /** Base-table references that no CTE in scope answers, in order of appearance. */
  readonly tables: readonly TableReference[];
  /** CTE names as written, in order of definition. */
  readonly ctes: readonly string[];
  readonly functions: readonly FunctionCall[];
  /** Unqualified clock keywords (current_date...), read by the parser as column names. */
  readonly clockKeywords: readonly string[];
  /** UNION, UNION ALL, INTERSECT, EXCEPT, UNION BY NAME... in order of appearance. */
  readonly setOperations: readonly string[];
  readonly subqueries: number;
  /** Prepared-statement parameters ($1, ?, $name): nothing binds them when a recipe runs. */
  readonly parameters: number;
  /** FROM-clause constructs a recipe cannot use (DESCRIBE, SHOW, SUMMARIZE, unknown kinds). */
  readonly unsupported: readonly string[];
}

/** Names of CTEs visible at a point of the tree: one link per name, innermost first. */
interface Scope {
  readonly name: string;
  readonly parent: Scope | undefined;
}

interface Frame {
  readonly value: Json;
  readonly scope: Scope | undefined;
}

const QUERY_NODES = new Set(['SELECT_NODE', 'SET_OPERATION_NODE', 'RECURSIVE_CTE_NODE', 'CTE_NODE']);
/** Table references the parser produces and a recipe may use. */
const TABLE_REFS = new Set(['BASE_TABLE', 'JOIN', 'SUBQUERY', 'TABLE_FUNCTION', 'EXPRESSION_LIST', 'EMPTY', 'PIVOT']);

/** How the user wrote what the parser calls SHOW_REF. */
const UNSUPPORTED_NAMES: Readonly<Record<string, string>> = { SHOW_REF: 'DESCRIBE, SHOW or SUMMARIZE' };

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: Json | undefined): string => (typeof value === 'string' ? value : '');
const asList = (value: Json | undefined): readonly Json[] => (Array.isArray(value) ? (value as readonly Json[]) : []);

function inScope(scope: Scope | undefined, name: string): boolean {
  for (let link = scope; link; link = link.parent) if (link.name === name) return true;
  return false;
}

/** A FROM-clause item: not an expression (no `class`), and shaped like DuckDB's TableRef. */
const looksLikeTableRef = (node: JsonObject): boolean =>
  'sample' in node && 'alias' in node && !QUERY_NODES.has(text(node.type));

/**
 * The function's own name, whatever precedes it: the parser writes main. before the
 * functions of some syntax (AT TIME ZONE, EXTRACT, TRIM), and a.b.upper() is a method call
 * on column a.b as much as upper() in schema b of catalog a. Either way it is the function
 * of that name: no catalog but DuckDB's own can hold functions in the sandbox, which
 * attaches nothing and where the analyzer lets no CREATE through.
 */
function functionCall(node: JsonObject, kind: FunctionCall['kind']): FunctionCall {
  return { name: text(node.function_name).toLowerCase(), kind };
}

function setOperation(node: JsonObject): string {
  const [operation, byName] = text(node.setop_type).split('_BY_');
  return [operation, node.setop_all === true ? 'ALL' : '', byName ? `BY ${byName}` : ''].filter(Boolean).join(' ');
}

/** The facts of one statement (an element of json_serialize_sql's `statements`). */
export function readQueryTree(statement: Json): QueryTree {
  const tables: TableReference[] = [];
  const ctes: string[] = [];
  const functions: FunctionCall[] = [];
  const clockKeywords: string[] = [];
  const setOperations: string[] = [];
  const unsupported: string[] = [];
  let subqueries = 0;
  let parameters = 0;

  const stack: Frame[] = [{ value: statement, scope: undefined }];
  const pushValues = (node: JsonObject, scope: Scope | undefined, skip?: string) => {
    // Reversed, so that the stack pops them in the order they are written.
    const keys = Object.keys(node).reverse();
    for (const key of keys) if (key !== skip) stack.push({ value: node[key]!, scope });
  };

  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { value, scope } = frame;
    if (Array.isArray(value)) {
      // Array.isArray says any[]: the frame's type says what the items are.
      const items: readonly Json[] = value;
      for (let index = items.length - 1; index >= 0; index--) stack.push({ value: items[index]!, scope });
      continue;
    }
    if (!isObject(value)) continue;
    const type = text(value.type);
    const expressionClass = text(value.class);

    if (expressionClass) {
      if (expressionClass === 'FUNCTION' || expressionClass === 'WINDOW') {
        functions.push(functionCall(value, expressionClass === 'WINDOW' ? 'window' : 'scalar'));
      } else if (expressionClass === 'SUBQUERY') subqueries++;
      else if (expressionClass === 'PARAMETER') parameters++;
      else if (expressionClass === 'COLUMN_REF') {
        const names = asList(value.column_names);
        if (names.length === 1 && CLOCK_KEYWORDS.has(text(names[0]).toLowerCase())) clockKeywords.push(text(names[0]));
      }
      pushValues(value, scope);
    } else if (QUERY_NODES.has(type)) {
      // A CTE's body sees the CTEs defined before it (and itself only when recursive); the
      // rest of the query sees them all.
      let inner = scope;
      const cteMap = isObject(value.cte_map) ? asList(value.cte_map.map) : [];
      const bodies: Frame[] = [];
      for (const entry of cteMap) {
        if (!isObject(entry)) continue;
        const name = text(entry.key);
        ctes.push(name);
        bodies.push({ value: entry.value ?? null, scope: inner });
        inner = { name: name.toLowerCase(), parent: inner };
      }
      if (type === 'RECURSIVE_CTE_NODE') inner = { name: text(value.cte_name).toLowerCase(), parent: inner };
      if (type === 'SET_OPERATION_NODE') setOperations.push(setOperation(value));
      if (type === 'RECURSIVE_CTE_NODE') setOperations.push(value.union_all === true ? 'UNION ALL' : 'UNION');
      pushValues(value, inner, 'cte_map');
      for (const body of bodies.reverse()) stack.push(body);
    } else if (TABLE_REFS.has(type)) {
      if (type === 'BASE_TABLE') {
        const name = text(value.table_name);
        const qualifiers = [text(value.catalog_name), text(value.schema_name)].filter(Boolean);
        if (qualifiers.length > 0) tables.push({ name: [...qualifiers, name].join('.'), qualified: true });
        else if (!inScope(scope, name.toLowerCase())) tables.push({ name, qualified: false });
      } else if (type === 'TABLE_FUNCTION' && isObject(value.function)) {
        const call = value.function;
        functions.push(functionCall(call, 'table'));
        // Its arguments, not the call itself, which would count again as a scalar function.
        pushValues(call, scope);
        pushValues(value, scope, 'function');
        continue;
      } else if (type === 'SUBQUERY') subqueries++;
      pushValues(value, scope);
    } else if (looksLikeTableRef(value)) {
      // SHOW_REF (DESCRIBE, SHOW, SUMMARIZE) and any kind a later DuckDB adds: refused until
      // the analyzer knows what it reads.
      unsupported.push(UNSUPPORTED_NAMES[type] ?? (type || 'an unknown FROM item'));
      pushValues(value, scope);
    } else pushValues(value, scope);
  }
  return { tables, ctes, functions, clockKeywords, setOperations, subqueries, parameters, unsupported };
}
