import { ParserRuleContext, type ParseTree } from 'antlr4ng';
import {
  BackQuotedIdentifierContext,
  CurrentCatalogContext,
  CurrentDateContext,
  CurrentPathContext,
  CurrentSchemaContext,
  CurrentTimeContext,
  CurrentTimestampContext,
  CurrentUserContext,
  DigitIdentifierContext,
  ExistsContext,
  FunctionCallContext,
  type IdentifierContext,
  InSubqueryContext,
  LocalTimeContext,
  LocalTimestampContext,
  ParameterContext,
  QuantifiedComparisonContext,
  QuotedIdentifierContext,
  SetOperationContext,
  SubqueryExpressionContext,
  SubqueryRelationContext,
  TableFunctionInvocationContext,
  TableRefContext,
  ViewRefContext,
  WithContext,
} from 'dt-sql-parser/dist/lib/trino/TrinoSqlParser';
import type { FunctionCall, QueryTree } from '../recipe-sql-tree';

/**
 * What a query parsed by Trino's grammar (trino-parse.ts) holds for the analyzer, in the shape
 * the DuckDB analyzer reads (recipe-sql-tree.ts QueryTree), so both languages are judged by
 * the same rules. Walked with an explicit stack, never by recursion: the work is linear in the
 * tree, which the code-length and nesting bounds limit.
 */

/** Keywords that read the session or the clock: a recipe gives the same rows on the same data. */
const CLOCK_CONTEXTS: ReadonlyArray<readonly [new (...args: never[]) => ParserRuleContext, string]> = [
  [CurrentDateContext, 'current_date'],
  [CurrentTimeContext, 'current_time'],
  [CurrentTimestampContext, 'current_timestamp'],
  [LocalTimeContext, 'localtime'],
  [LocalTimestampContext, 'localtimestamp'],
];

/** Keywords that read the engine's session: who runs it, in which catalogue and schema. */
const SESSION_CONTEXTS: ReadonlyArray<readonly [new (...args: never[]) => ParserRuleContext, string]> = [
  [CurrentUserContext, 'current_user'],
  [CurrentCatalogContext, 'current_catalog'],
  [CurrentSchemaContext, 'current_schema'],
  [CurrentPathContext, 'current_path'],
];

/** The facts of one Trino query, plus what only Trino's dialect has. */
export interface TrinoQueryTree extends QueryTree {
  /** Functions called with a catalogue or schema before their name (`system.x.f()`). */
  readonly qualifiedFunctions: readonly string[];
  /** current_user, current_catalog...: the engine's session, not the data. */
  readonly sessionKeywords: readonly string[];
  /** Identifiers Trino itself refuses (`backquoted`, 1digit), with Trino's reason. */
  readonly badIdentifiers: readonly string[];
}

/** An identifier's name as Trino resolves it: quoted ones unquoted, their doubled quotes undone. */
export function identifierName(identifier: IdentifierContext): string {
  const text = identifier.getText();
  if (identifier instanceof QuotedIdentifierContext) return text.slice(1, -1).replace(/""/g, '"');
  return text;
}

interface Scope {
  readonly name: string;
  readonly parent: Scope | undefined;
}

interface Frame {
  readonly node: ParseTree;
  readonly scope: Scope | undefined;
}

function inScope(scope: Scope | undefined, name: string): boolean {
  for (let link = scope; link; link = link.parent) if (link.name === name) return true;
  return false;
}

function setOperation(node: SetOperationContext): string {
  const operator = (node._operator?.text ?? '').toUpperCase();
  return node.setQuantifier()?.KW_ALL() ? `${operator} ALL` : operator;
}

const childrenOf = (node: ParseTree): readonly ParseTree[] =>
  node instanceof ParserRuleContext ? (node.children ?? []) : [];

/** The facts of one statement's query (a StatementDefaultContext's rootQuery). */
export function readTrinoQuery(root: ParseTree): TrinoQueryTree {
  const tables: { name: string; qualified: boolean }[] = [];
  const ctes: string[] = [];
  const functions: FunctionCall[] = [];
  const clockKeywords: string[] = [];
  const sessionKeywords: string[] = [];
  const setOperations: string[] = [];
  const unsupported: string[] = [];
  const qualifiedFunctions: string[] = [];
  const badIdentifiers: string[] = [];
  let subqueries = 0;
  let parameters = 0;

  const stack: Frame[] = [{ node: root, scope: undefined }];
  const pushChildren = (children: readonly ParseTree[], scope: Scope | undefined) => {
    // Reversed, so that the stack pops them in the order they are written.
    for (let index = children.length - 1; index >= 0; index--) stack.push({ node: children[index]!, scope });
  };

  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { node, scope } = frame;
    const children = childrenOf(node);
    const withClause = children.find((child): child is WithContext => child instanceof WithContext);
    if (withClause) {
      // A CTE's body sees the CTEs defined before it (and itself when RECURSIVE); the rest of the query sees them all.
      const recursive = withClause.KW_RECURSIVE() !== null;
      let inner = scope;
      const bodies: Frame[] = [];
      for (const named of withClause.namedQuery()) {
        const name = identifierName(named.identifier());
        ctes.push(name);
        const own = { name: name.toLowerCase(), parent: inner };
        bodies.push({ node: named.query(), scope: recursive ? own : inner });
        inner = own;
      }
      pushChildren(
        children.filter((child) => child !== withClause),
        inner,
      );
      for (const body of bodies.reverse()) stack.push(body);
      continue;
    }
    if (node instanceof TableRefContext || node instanceof ViewRefContext) {
      const parts = node.identifier().map(identifierName);
      const name = parts.join('.');
      if (parts.length > 1) tables.push({ name, qualified: true });
      else if (!inScope(scope, name.toLowerCase())) tables.push({ name, qualified: false });
    } else if (node instanceof FunctionCallContext) {
      const parts = node.functionName().qualifiedName().identifier().map(identifierName);
      const name = parts.join('.').toLowerCase();
      if (parts.length > 1) qualifiedFunctions.push(name);
      functions.push({ name, kind: node.over() ? 'window' : 'scalar' });
    } else if (node instanceof TableFunctionInvocationContext) {
      unsupported.push('table functions (TABLE(...))');
    } else if (node instanceof SetOperationContext) {
      setOperations.push(setOperation(node));
    } else if (
      node instanceof SubqueryRelationContext ||
      node instanceof SubqueryExpressionContext ||
      node instanceof ExistsContext ||
      node instanceof InSubqueryContext ||
      node instanceof QuantifiedComparisonContext
    ) {
      subqueries++;
    } else if (node instanceof ParameterContext) {
      parameters++;
    } else if (node instanceof BackQuotedIdentifierContext) {
      badIdentifiers.push(`${node.getText()}: Trino does not support backquoted identifiers; quote with "`);
    } else if (node instanceof DigitIdentifierContext) {
      badIdentifiers.push(`${node.getText()}: Trino identifiers must not start with a digit; quote it with "`);
    } else {
      const clock = CLOCK_CONTEXTS.find(([type]) => node instanceof type);
      if (clock) clockKeywords.push(clock[1]);
      const session = SESSION_CONTEXTS.find(([type]) => node instanceof type);
      if (session) sessionKeywords.push(session[1]);
    }
    pushChildren(children, scope);
  }
  return {
    tables,
    ctes,
    functions,
    clockKeywords,
    setOperations,
    subqueries,
    parameters,
    unsupported,
    qualifiedFunctions,
    sessionKeywords,
    badIdentifiers,
  };
}
