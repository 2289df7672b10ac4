/**
 * The API routes a Markdown document mentions, and whether the route table has them: the scanner
 * behind test/unit/docs/doc-routes.test.ts. Three kinds of mention are read:
 *
 * - `METHOD /path` (also `GET|PUT /path` and `METHOD $BASE/path`), in prose or in code;
 * - a curl command line with `$BASE/path` (its method: `-X`, else POST when it sends data
 *   without `-G`, else GET), continuation lines joined;
 * - a path in backticks whose first segment is one of the API's (`/quota/usage`): any method.
 *
 * A document writes paths in several ways, so a mentioned path is a pattern, not a request:
 * `{name}`, `<name>`, `$NAME` and `:name` are parameters (they match only a parameter of the
 * route), a concrete value (`1`, `local`) matches a parameter or the same literal, `...` stands
 * for one or more segments, and a trailing `/` or `...` for "this route or one under it".
 */
import { API_BASE_PATH } from '../../shared/config';

/** One route of the table, as the check needs it. */
export interface TableRoute {
  readonly method: string;
  readonly path: string;
}

/** A route a document mentions; `method` is undefined for a bare path (any method will do). */
export interface Mention {
  readonly line: number;
  readonly method: string | undefined;
  /** The path as written, base path removed. */
  readonly path: string;
}

/** A mention the route table does not have, said as the check reports it. */
export interface Finding extends Mention {
  readonly reason: string;
}

const METHODS = 'GET|POST|PUT|PATCH|DELETE';
/** A path as documents write it: placeholders may hold characters a path otherwise stops at. */
const PATH = String.raw`(?:\{[^}\s]*\}|<[^>\s]*>|\$\([^)\s]*\)|[^\s\`'"(),;<>{}|\\])+`;
/** `$BASE` of the README, or the API's base path written out. */
const BASE = String.raw`(?:"?\$\{?BASE\}?|${API_BASE_PATH})`;
const METHOD_MENTION = new RegExp(
  String.raw`\b((?:${METHODS})(?:\|(?:${METHODS}))*)\`? +\`?(${BASE}?/(?:${PATH})?)`,
  'g',
);
const CURL_URL = new RegExp(String.raw`${BASE}(/(?:${PATH})?)`, 'g');
const BACKTICKED = new RegExp(String.raw`\`(${BASE}?/(?:${PATH})?)\``, 'g');

/** A document line with the continuation lines of a shell command joined to it. */
interface LogicalLine {
  readonly line: number;
  readonly text: string;
}

function logicalLines(text: string): LogicalLine[] {
  const lines: LogicalLine[] = [];
  let open: { line: number; parts: string[] } | undefined;
  for (const [index, raw] of text.split('\n').entries()) {
    const continued = raw.endsWith('\\');
    const part = continued ? raw.slice(0, -1) : raw;
    if (open === undefined) open = { line: index + 1, parts: [] };
    open.parts.push(part);
    if (!continued) {
      lines.push({ line: open.line, text: open.parts.join(' ') });
      open = undefined;
    }
  }
  if (open !== undefined) lines.push({ line: open.line, text: open.parts.join(' ') });
  return lines;
}

/** The method of a curl command, as curl picks it. */
function curlMethod(command: string): string {
  const explicit = /(?:^|\s)(?:-X|--request)\s+([A-Z]+)/.exec(command);
  if (explicit) return explicit[1]!;
  if (/(?:^|\s)(?:-G|--get)(?:\s|$)/.test(command)) return 'GET';
  return /(?:^|\s)(?:-d|--data|--data-\w+|-F|--form)(?:\s|$)/.test(command) ? 'POST' : 'GET';
}

/** The path without the base path, query, fragment, and the punctuation of the sentence around it. */
function cleanPath(written: string): string {
  return written
    .replace(new RegExp(`^${BASE}`), '')
    .replace(/[?#].*$/, '')
    .replace(/[.:]+$/, (dots) => (dots.startsWith('...') ? '...' : ''));
}

/**
 * The route mentions of a document. `apiSegments` are the first path segments of the route
 * table: a bare backticked path is a mention only when it starts with one of them.
 */
export function mentionsIn(text: string, apiSegments: ReadonlySet<string>): Mention[] {
  const mentions: Mention[] = [];
  const add = (line: number, method: string | undefined, written: string) => {
    const path = cleanPath(written);
    if (!mentions.some((seen) => seen.line === line && seen.method === method && seen.path === path))
      mentions.push({ line, method, path });
  };
  for (const { line, text: content } of logicalLines(text)) {
    const curl = /(?:^|[\s$(])curl\s/.exec(content);
    if (curl) {
      // Each command of a line with a pipe or && after the curl is its own; the URL is the curl's.
      const command = content.slice(curl.index).split(/\s(?:\||&&|;)\s/)[0]!;
      for (const match of command.matchAll(CURL_URL)) add(line, curlMethod(command), match[1]!);
    }
    for (const match of content.matchAll(METHOD_MENTION))
      if (!curl) for (const method of match[1]!.split('|')) add(line, method, match[2]!);
    for (const match of content.matchAll(BACKTICKED)) {
      const path = cleanPath(match[1]!);
      const first = path.split('/')[1] ?? '';
      const hasMethod = mentions.some((seen) => seen.line === line && seen.path === path);
      if (apiSegments.has(first) && !hasMethod) add(line, undefined, match[1]!);
    }
  }
  return mentions;
}

type Pattern = { kind: 'literal'; text: string } | { kind: 'parameter' } | { kind: 'any' };

/** The path's segments; `prefix` when it ends in `/` or `...`: the route itself or one under it. */
function patternOf(path: string): { segments: Pattern[]; prefix: boolean } {
  const parts = path.split('/').slice(1);
  const last = parts.at(-1) ?? '';
  const prefix = (parts.length > 1 && last === '') || /(\.\.\.|…)$/.test(last);
  if (prefix) {
    const stem = last.replace(/(\.\.\.|…)$/, '');
    parts.splice(-1, 1, ...(stem === '' ? [] : [stem]));
  }
  return {
    prefix,
    segments: parts.map((part): Pattern => {
      if (part === '...' || part === '…') return { kind: 'any' };
      if (/^:\w+$/.test(part) || /[{<$]/.test(part)) return { kind: 'parameter' };
      return { kind: 'literal', text: part };
    }),
  };
}

function segmentFits(pattern: Pattern, route: string): boolean {
  const routeParameter = route.startsWith('{');
  if (pattern.kind === 'parameter') return routeParameter;
  return pattern.kind === 'literal' && (routeParameter || pattern.text === route);
}

/** Whether the route's segments fit the pattern's from `p` and `r` on. */
function fits(pattern: readonly Pattern[], route: readonly string[], prefix: boolean, p = 0, r = 0): boolean {
  if (p === pattern.length) return r === route.length || prefix;
  const segment = pattern[p]!;
  if (segment.kind === 'any') {
    // One or more segments.
    for (let end = r + 1; end <= route.length; end += 1) if (fits(pattern, route, prefix, p + 1, end)) return true;
    return false;
  }
  return r < route.length && segmentFits(segment, route[r]!) && fits(pattern, route, prefix, p + 1, r + 1);
}

/** The routes of the table a mentioned path fits, whatever their method. */
export function routesFitting(path: string, table: readonly TableRoute[]): TableRoute[] {
  const { segments, prefix } = patternOf(path);
  return table.filter((route) => fits(segments, route.path.split('/').slice(1), prefix));
}

/** The mentions of a document the route table does not have, each with what is wrong. */
export function routeFindings(text: string, table: readonly TableRoute[]): Finding[] {
  const apiSegments = new Set(table.map((route) => route.path.split('/')[1]!));
  return mentionsIn(text, apiSegments).flatMap((mention): Finding[] => {
    const fitting = routesFitting(mention.path, table);
    if (fitting.length === 0) return [{ ...mention, reason: 'no route has this path' }];
    if (mention.method === undefined || fitting.some((route) => route.method === mention.method)) return [];
    const methods = [...new Set(fitting.map((route) => route.method))].join(', ');
    return [{ ...mention, reason: `this path has no ${mention.method} route (only ${methods})` }];
  });
}
