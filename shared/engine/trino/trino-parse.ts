import {
  BailErrorStrategy,
  CharStreams,
  CommonTokenStream,
  ParseCancellationException,
  PredictionMode,
  type ANTLRErrorListener,
  type ATNSimulator,
  type Recognizer,
  type Token,
} from 'antlr4ng';
import { TrinoSqlLexer } from 'dt-sql-parser/dist/lib/trino/TrinoSqlLexer';
import {
  TrinoSqlParser,
  type ProgramContext,
  type SingleStatementContext,
} from 'dt-sql-parser/dist/lib/trino/TrinoSqlParser';

/**
 * Recipe code in Trino's dialect (language `trino-sql`), read by dt-sql-parser's lexer and
 * parser, which are generated from Trino's own ANTLR grammar (SqlBase.g4): what parses here is
 * what Athena's engine parses, so the analyzer and the engine that runs the code read the same
 * query (docs/decisions.md, "Trino recipes"). Parsing never runs or binds anything.
 */

/** The statements of the code, or where and why it does not parse. */
export type ParsedTrinoSql =
  | { readonly error: false; readonly statements: readonly SingleStatementContext[] }
  | {
      readonly error: true;
      readonly message: string;
      readonly position: number;
      readonly line: number;
      readonly column: number;
    };

/**
 * Deepest nesting of parentheses and brackets the parser is given. ANTLR's parser descends
 * recursively, so deeper input would exhaust the call stack; DuckDB's parser stops at 1,000
 * expression levels, and no real recipe comes near either.
 */
export const MAX_TRINO_NESTING = 200;

interface SyntaxError {
  readonly message: string;
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** Collects the first syntax error instead of printing it, as ANTLR's default listener does. */
class FirstError implements ANTLRErrorListener {
  first: SyntaxError | undefined;
  syntaxError<S extends Token, T extends ATNSimulator>(
    _recognizer: Recognizer<T>,
    offending: S | null,
    line: number,
    column: number,
    message: string,
  ): void {
    this.first ??= { message, offset: offending?.start ?? -1, line, column: column + 1 };
  }
  reportAmbiguity(): void {}
  reportAttemptingFullContext(): void {}
  reportContextSensitivity(): void {}
}

/** The code as Trino's grammar reads it. */
export function parseTrinoSql(code: string): ParsedTrinoSql {
  const lexerErrors = new FirstError();
  const lexer = new TrinoSqlLexer(CharStreams.fromString(code));
  lexer.removeErrorListeners();
  lexer.addErrorListener(lexerErrors);
  const tokens = new CommonTokenStream(lexer);
  tokens.fill();
  const tooDeep = nestingBeyondBound(tokens.getTokens());
  if (tooDeep) return failure(code, tooDeep);
  if (lexerErrors.first) return failure(code, lexerErrors.first);
  // Two stages, as ANTLR advises: SLL prediction is much faster and right for almost every
  // input; only code it cannot read is parsed again with full LL, whose errors are the answer.
  const fast = new TrinoSqlParser(tokens);
  fast.removeErrorListeners();
  fast.interpreter.predictionMode = PredictionMode.SLL;
  fast.errorHandler = new BailErrorStrategy();
  try {
    return statementsOf(fast.program());
  } catch (error) {
    if (!(error instanceof ParseCancellationException)) throw error;
  }
  tokens.seek(0);
  const parser = new TrinoSqlParser(tokens);
  const parserErrors = new FirstError();
  parser.removeErrorListeners();
  parser.addErrorListener(parserErrors);
  const program = parser.program();
  if (parserErrors.first) return failure(code, parserErrors.first);
  return statementsOf(program);
}

function statementsOf(program: ProgramContext): ParsedTrinoSql {
  return { error: false, statements: program.statements().map((statements) => statements.singleStatement()) };
}

/** The first bracket that opens past MAX_TRINO_NESTING levels, as a syntax error. */
function nestingBeyondBound(tokens: readonly Token[]): SyntaxError | undefined {
  let depth = 0;
  for (const token of tokens) {
    const text = token.text ?? '';
    if (text === '(' || text === '[') depth++;
    else if (text === ')' || text === ']') depth--;
    if (depth > MAX_TRINO_NESTING)
      return {
        message: `the query nests expressions or subqueries deeper than ${MAX_TRINO_NESTING} levels`,
        offset: token.start,
        line: token.line,
        column: token.column + 1,
      };
  }
  return undefined;
}

/** A syntax error with its character offset (code points, as DuckDB's analyzer counts). */
function failure(code: string, error: SyntaxError): ParsedTrinoSql {
  // ANTLR's CharStream counts code points, as the DuckDB analyzer's positions do.
  const position = error.offset >= 0 ? error.offset : [...code].length;
  return { error: true, message: error.message, position, line: error.line, column: error.column };
}
