import { AppError } from '../errors/app-error';

/**
 * The local check of a source query (30-1009): one read-only statement. A lexical scan, not a
 * parser (API functions stay small, and the warehouse parses the query anyway); the warehouse
 * connector must still run source queries with read-only credentials and one statement per
 * call, because no lexical check can know which functions have side effects.
 *
 * Lexing rules differ between SQL dialects in ways that decide what is code: backslash
 * escapes in quotes (Snowflake, MySQL) or not (standard SQL, PostgreSQL), nested block
 * comments (PostgreSQL) or not, "//" line comments (Snowflake) or not. A query that hides a
 * statement in one reading can show it in another, so the query is scanned in every
 * combination of those readings and refused if any reading finds a problem. Text a reading
 * leaves unterminated (a quote, a comment) is taken as quoted to the end: a warehouse lexing
 * it that way fails on the syntax error and runs nothing.
 */

/** Words a query may start with. */
const QUERY_STARTS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);

/**
 * Words that write, define or run something. They are refused anywhere in the query, not
 * only at its start, because a query can embed them (`WITH x AS (DELETE ... RETURNING *)`,
 * `SELECT ... INTO t`, `REPLACE INTO`, `COPY INTO`, `FOR UPDATE`) and some dialects run
 * statements that follow one another without a semicolon. Statement-only commands (COPY,
 * SET, USE, COMMENT, VACUUM, ANALYZE, ATTACH, PUT, LOAD, ...) can appear only where a
 * statement begins, which for a single statement is its start: they are refused there, so
 * column names such as "comment" or "load" stay usable.
 */
export const MODIFYING_WORDS: ReadonlySet<string> = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'UPSERT',
  'INTO',
  'CREATE',
  'DROP',
  'ALTER',
  'TRUNCATE',
  'RENAME',
  'GRANT',
  'REVOKE',
  'CALL',
  'EXEC',
  'EXECUTE',
]);

/** Modifying words that are also scalar functions: INSERT(s, pos, len, t), TRUNCATE(n, d). */
const FUNCTION_NAMES: ReadonlySet<string> = new Set(['INSERT', 'TRUNCATE']);

interface Reading {
  readonly backslashEscapes: boolean;
  readonly nestedComments: boolean;
  readonly slashComments: boolean;
}

const READINGS: readonly Reading[] = [false, true].flatMap((backslashEscapes) =>
  [false, true].flatMap((nestedComments) =>
    [false, true].map((slashComments) => ({ backslashEscapes, nestedComments, slashComments })),
  ),
);

/** Words (bare identifiers and keywords, upper-cased), punctuation, and opaque literals. */
type Token =
  | { readonly kind: 'word'; readonly text: string }
  | { readonly kind: 'symbol'; readonly text: string }
  | { readonly kind: 'literal' };

// Sticky patterns, matched at one position. Words are ASCII only: any other character stands
// alone, so a keyword is never hidden inside what a warehouse would split into two tokens.
const WORD = /[A-Za-z_][A-Za-z0-9_$]*/y;
// Digits never absorb letters: "1into" is the number 1 and the word INTO.
const NUMBER = /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const DOLLAR_TAG = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;
const PARAMETER = /\$[A-Za-z0-9_]+/y;

function matchAt(pattern: RegExp, sql: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(sql)?.[0];
}

/** Index just past the quote closing the one at `start` ('', "" and `` double as escapes). */
function endOfQuoted(sql: string, start: number, reading: Reading): number {
  const quote = sql[start];
  let at = start + 1;
  while (at < sql.length) {
    const char = sql[at];
    if (char === '\\' && reading.backslashEscapes) at += 2;
    else if (char === quote && sql[at + 1] === quote) at += 2;
    else if (char === quote) return at + 1;
    else at += 1;
  }
  return sql.length;
}

function endOfBlockComment(sql: string, start: number, reading: Reading): number {
  let depth = 0;
  let at = start;
  while (at < sql.length) {
    if (sql.startsWith('/*', at) && (depth === 0 || reading.nestedComments)) {
      depth += 1;
      at += 2;
    } else if (sql.startsWith('*/', at)) {
      depth -= 1;
      at += 2;
      if (depth === 0) return at;
    } else {
      at += 1;
    }
  }
  return sql.length;
}

function endOfLine(sql: string, start: number): number {
  const newline = sql.indexOf('\n', start);
  return newline === -1 ? sql.length : newline + 1;
}

function tokenize(sql: string, reading: Reading): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < sql.length) {
    const char = sql[at]!;
    const pair = sql.slice(at, at + 2);
    let matched: string | undefined;
    if (/\s/.test(char)) {
      at += 1;
    } else if (pair === '--' || (pair === '//' && reading.slashComments)) {
      at = endOfLine(sql, at);
    } else if (pair === '/*') {
      at = endOfBlockComment(sql, at, reading);
    } else if (char === "'" || char === '"' || char === '`') {
      tokens.push({ kind: 'literal' });
      at = endOfQuoted(sql, at, reading);
    } else if ((matched = matchAt(DOLLAR_TAG, sql, at))) {
      tokens.push({ kind: 'literal' });
      const close = sql.indexOf(matched, at + matched.length);
      at = close === -1 ? sql.length : close + matched.length;
    } else if ((matched = matchAt(WORD, sql, at))) {
      tokens.push({ kind: 'word', text: matched.toUpperCase() });
      at += matched.length;
    } else if ((matched = matchAt(NUMBER, sql, at) ?? matchAt(PARAMETER, sql, at))) {
      tokens.push({ kind: 'literal' });
      at += matched.length;
    } else {
      tokens.push({ kind: 'symbol', text: char });
      at += 1;
    }
  }
  return tokens;
}

const isSymbol = (token: Token | undefined, text: string): boolean => token?.kind === 'symbol' && token.text === text;

function problemIn(tokens: readonly Token[]): string | undefined {
  const first = tokens[0];
  if (!first) return 'must contain a query';
  if (!(isSymbol(first, '(') || (first.kind === 'word' && QUERY_STARTS.has(first.text)))) {
    return 'must start with SELECT, WITH, VALUES, TABLE or "("';
  }
  const end = tokens.findIndex((token) => isSymbol(token, ';'));
  if (end !== -1 && tokens.slice(end).some((token) => !isSymbol(token, ';'))) return 'must be a single statement';
  for (const [index, token] of tokens.entries()) {
    if (token.kind !== 'word' || !MODIFYING_WORDS.has(token.text)) continue;
    // A qualified name's part (t.update) or a function call (INSERT(...)) is no statement.
    if (isSymbol(tokens[index - 1], '.')) continue;
    if (FUNCTION_NAMES.has(token.text) && isSymbol(tokens[index + 1], '(')) continue;
    return `must not use ${token.text}: only read-only queries may define a source`;
  }
  return undefined;
}

/** Why `sql` is not one read-only query, in any reading; undefined when it is. */
export function readOnlyQueryProblem(sql: string): string | undefined {
  for (const reading of READINGS) {
    const problem = problemIn(tokenize(sql, reading));
    if (problem) return problem;
  }
  return undefined;
}

/** 30-1009 unless `sql` is one read-only query; the reason names no part of the query but a keyword. */
export function assertReadOnlyQuery(sql: string): void {
  const problem = readOnlyQueryProblem(sql);
  if (problem) throw new AppError('30-1009', { extraDetails: { query: problem } });
}
