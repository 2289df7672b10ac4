import { excerpt, validationError } from '../errors/app-error';
import {
  MAX_FILTER_DEPTH,
  MAX_FILTER_TOKENS,
  MAX_SORT_KEYS,
  type ListFieldType,
  type ListFieldTypes,
} from '../model/list-fields';

/**
 * ListQuery: offset, limit, sort and filter over a tenant's entities (docs/list-query.md).
 *
 *   sort   := key ("," key)*            key := ["-" | "+"] field       (at most 3 keys)
 *   filter := or
 *   or     := and ("or" and)*
 *   and    := unary ("and" unary)*
 *   unary  := "not" unary | "(" or ")" | field op value
 *   op     := eq | ne | gt | ge | lt | le | co | sw | ew
 *   value  := 'text' ('' escapes a quote) | number | true | false | null
 *
 * Keywords are case-insensitive. eq/ne compare exactly; co (contains), sw (starts with) and
 * ew (ends with) ignore case. On a list field (tags), co means "has an element equal to",
 * ignoring case. Ties in sorting are broken by id, so pages are stable.
 */
export type { ListFieldType };

export interface ListField<T, K extends ListFieldType = ListFieldType> {
  readonly type: K;
  readonly value: (record: T) => unknown;
}

/** Accessors of a list's fields; given the list's table (shared/model/list-fields.ts), exactly its fields with their types. */
export type ListFields<T, F extends ListFieldTypes = ListFieldTypes> = { readonly [N in keyof F]: ListField<T, F[N]> };

export interface ListQuery {
  readonly offset: number;
  readonly limit: number;
  readonly sort?: string | undefined;
  readonly filter?: string | undefined;
}

export interface ListPage<T> {
  readonly offset: number;
  /** Number of records in this result set (spec 2.2). */
  readonly limit: number;
  readonly total: number;
  readonly items: T[];
}

/**
 * A date-time value: ISO 8601 as RFC 3339 writes it, with its offset (what the OpenAPI
 * document says). Date.parse alone would also take "March 7, 2026" or a bare date.
 */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

type Operator = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le' | 'co' | 'sw' | 'ew';
const OPERATORS: readonly Operator[] = ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'co', 'sw', 'ew'];
const ALLOWED_OPERATORS: Record<ListFieldType, readonly Operator[]> = {
  string: OPERATORS,
  integer: ['eq', 'ne', 'gt', 'ge', 'lt', 'le'],
  boolean: ['eq', 'ne'],
  datetime: ['eq', 'ne', 'gt', 'ge', 'lt', 'le'],
  'string-list': ['co'],
};

type Literal = string | number | boolean | null;
type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'number'; value: number; at: number }
  | { kind: 'paren'; text: '(' | ')'; at: number };

type Predicate<T> = (record: T) => boolean;

class FilterSyntaxError extends Error {}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const char = source[at]!;
    if (/\s/.test(char)) {
      at += 1;
    } else if (char === '(' || char === ')') {
      tokens.push({ kind: 'paren', text: char, at });
      at += 1;
    } else if (char === "'") {
      let value = '';
      let end = at + 1;
      for (;;) {
        if (end >= source.length) throw new FilterSyntaxError(`unterminated string starting at position ${at + 1}`);
        if (source[end] === "'") {
          if (source[end + 1] === "'") {
            value += "'";
            end += 2;
            continue;
          }
          break;
        }
        value += source[end];
        end += 1;
      }
      tokens.push({ kind: 'string', value, at });
      at = end + 1;
    } else {
      const match = /^-?\d+(?:\.\d+)?(?![\w.])|^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(at));
      if (!match) throw new FilterSyntaxError(`unexpected character '${excerpt(char)}' at position ${at + 1}`);
      const text = match[0];
      if (/^-?\d/.test(text)) tokens.push({ kind: 'number', value: Number(text), at });
      else tokens.push({ kind: 'word', text, at });
      at += text.length;
    }
    if (tokens.length > MAX_FILTER_TOKENS)
      throw new FilterSyntaxError(`expression longer than ${MAX_FILTER_TOKENS} tokens`);
  }
  return tokens;
}

function describe(token: Token | undefined): string {
  if (!token) return 'end of expression';
  const text =
    token.kind === 'string'
      ? `'${excerpt(token.value)}'`
      : token.kind === 'number'
        ? String(token.value)
        : excerpt(token.text);
  return `'${text}' at position ${token.at + 1}`;
}

/** Field by name; only the resource's own fields, never Object.prototype members such as "constructor". */
function fieldNamed<T>(fields: ListFields<T>, name: string): ListField<T> | undefined {
  return Object.hasOwn(fields, name) ? fields[name] : undefined;
}

function isWord(token: Token | undefined, word: string): boolean {
  return token?.kind === 'word' && token.text.toLowerCase() === word;
}

function compileFilter<T>(source: string, fields: ListFields<T>): Predicate<T> {
  const tokens = tokenize(source);
  let position = 0;

  const parseOr = (depth: number): Predicate<T> => {
    if (depth > MAX_FILTER_DEPTH) throw new FilterSyntaxError(`nesting deeper than ${MAX_FILTER_DEPTH}`);
    const terms = [parseAnd(depth)];
    while (isWord(tokens[position], 'or')) {
      position += 1;
      terms.push(parseAnd(depth));
    }
    return terms.length === 1 ? terms[0]! : (record) => terms.some((term) => term(record));
  };

  const parseAnd = (depth: number): Predicate<T> => {
    const terms = [parseUnary(depth)];
    while (isWord(tokens[position], 'and')) {
      position += 1;
      terms.push(parseUnary(depth));
    }
    return terms.length === 1 ? terms[0]! : (record) => terms.every((term) => term(record));
  };

  const parseUnary = (depth: number): Predicate<T> => {
    const token = tokens[position];
    if (isWord(token, 'not')) {
      position += 1;
      const inner = parseUnary(depth + 1);
      return (record) => !inner(record);
    }
    if (token?.kind === 'paren' && token.text === '(') {
      position += 1;
      const inner = parseOr(depth + 1);
      const close = tokens[position];
      if (close?.kind !== 'paren' || close.text !== ')')
        throw new FilterSyntaxError(`expected ')' but found ${describe(close)}`);
      position += 1;
      return inner;
    }
    return parseComparison();
  };

  const parseComparison = (): Predicate<T> => {
    const fieldToken = tokens[position];
    if (fieldToken?.kind !== 'word')
      throw new FilterSyntaxError(`expected a field name but found ${describe(fieldToken)}`);
    const field = fieldNamed(fields, fieldToken.text);
    if (!field)
      throw new FilterSyntaxError(
        `unknown field '${excerpt(fieldToken.text)}'; filterable fields: ${Object.keys(fields).join(', ')}`,
      );
    const operatorToken = tokens[++position];
    const operator = operatorToken?.kind === 'word' ? (operatorToken.text.toLowerCase() as Operator) : undefined;
    if (!operator || !OPERATORS.includes(operator)) {
      throw new FilterSyntaxError(
        `expected an operator (${OPERATORS.join(', ')}) but found ${describe(operatorToken)}`,
      );
    }
    if (!ALLOWED_OPERATORS[field.type].includes(operator)) {
      throw new FilterSyntaxError(`operator '${operator}' does not apply to ${field.type} field '${fieldToken.text}'`);
    }
    const valueToken = tokens[++position];
    position += 1;
    const value = literal(valueToken);
    return comparison(fieldToken.text, field, operator, value, valueToken);
  };

  const predicate = parseOr(0);
  if (position < tokens.length) throw new FilterSyntaxError(`unexpected ${describe(tokens[position])}`);
  return predicate;
}

function literal(token: Token | undefined): Literal {
  if (token?.kind === 'string' || token?.kind === 'number') return token.value;
  if (isWord(token, 'true')) return true;
  if (isWord(token, 'false')) return false;
  if (isWord(token, 'null')) return null;
  throw new FilterSyntaxError(`expected a value but found ${describe(token)}`);
}

function comparison<T>(
  name: string,
  field: ListField<T>,
  operator: Operator,
  value: Literal,
  token: Token | undefined,
): Predicate<T> {
  if (value === null) {
    if (operator !== 'eq' && operator !== 'ne') throw new FilterSyntaxError(`null can only be compared with eq or ne`);
    return (record) => isAbsent(field.value(record)) === (operator === 'eq');
  }
  const mismatch = (expected: string): never => {
    throw new FilterSyntaxError(`field '${name}' needs ${expected}, not ${describe(token)}`);
  };
  switch (field.type) {
    case 'boolean':
      if (typeof value !== 'boolean') mismatch('true or false');
      return (record) => (field.value(record) === value) === (operator === 'eq');
    case 'integer': {
      if (typeof value !== 'number') mismatch('a number');
      const number = value as number;
      return (record) => ordered(field.value(record), number, operator);
    }
    case 'datetime': {
      const time = typeof value === 'string' && DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(time)) mismatch('an ISO 8601 date-time in quotes');
      return (record) => {
        const own = field.value(record);
        return typeof own === 'string' ? ordered(Date.parse(own), time, operator) : operator === 'ne';
      };
    }
    case 'string-list': {
      if (typeof value !== 'string') mismatch('a quoted text');
      const wanted = (value as string).toLowerCase();
      return (record) => {
        const own = field.value(record);
        return Array.isArray(own) && own.some((element) => String(element).toLowerCase() === wanted);
      };
    }
    case 'string': {
      if (typeof value !== 'string') mismatch('a quoted text');
      const text = value as string;
      return (record) => {
        const own = field.value(record);
        if (typeof own !== 'string') return operator === 'ne';
        switch (operator) {
          case 'co':
            return own.toLowerCase().includes(text.toLowerCase());
          case 'sw':
            return own.toLowerCase().startsWith(text.toLowerCase());
          case 'ew':
            return own.toLowerCase().endsWith(text.toLowerCase());
          default:
            return ordered(own, text, operator);
        }
      };
    }
  }
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

function ordered(own: unknown, other: string | number, operator: Operator): boolean {
  if (typeof own !== typeof other) return operator === 'ne';
  const left = own as string | number;
  switch (operator) {
    case 'eq':
      return left === other;
    case 'ne':
      return left !== other;
    case 'gt':
      return left > other;
    case 'ge':
      return left >= other;
    case 'lt':
      return left < other;
    case 'le':
      return left <= other;
    default:
      return false;
  }
}

function compareValues(a: unknown, b: unknown): number {
  if (isAbsent(a) || isAbsent(b)) return isAbsent(a) === isAbsent(b) ? 0 : isAbsent(a) ? 1 : -1;
  if (typeof a === 'string' && typeof b === 'string')
    return a.localeCompare(b, 'en', { sensitivity: 'base' }) || (a < b ? -1 : a > b ? 1 : 0);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return String(a).localeCompare(String(b));
}

function instant(value: unknown): number | undefined {
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(time) ? undefined : time;
}

function compileSort<T>(source: string, fields: ListFields<T>): (a: T, b: T) => number {
  const keys = source.split(',').map((part) => part.trim());
  if (keys.length > MAX_SORT_KEYS) throw validationError({ sort: `at most ${MAX_SORT_KEYS} sort keys` });
  const comparators = keys.map((key) => {
    const match = /^([+-]?)([A-Za-z_][A-Za-z0-9_]*)$/.exec(key);
    const field = match ? fieldNamed(fields, match[2]!) : undefined;
    if (!match || !field || field.type === 'string-list') {
      const sortable = Object.entries(fields)
        .filter(([, candidate]) => candidate.type !== 'string-list')
        .map(([name]) => name);
      throw validationError({
        sort: `'${excerpt(key)}' is not a sort key; use [-]field with one of: ${sortable.join(', ')}`,
      });
    }
    const direction = match[1] === '-' ? -1 : 1;
    // Date-times order by instant, whatever offset their text carries.
    const value = field.type === 'datetime' ? (record: T) => instant(field.value(record)) : field.value;
    return (a: T, b: T) => direction * compareValues(value(a), value(b));
  });
  return (a, b) => {
    for (const comparator of comparators) {
      const order = comparator(a, b);
      if (order !== 0) return order;
    }
    return 0;
  };
}

/** Applies filter, sort (then id), offset and limit; bad expressions are 10-1400. */
export function applyListQuery<T extends { readonly id: number }>(
  records: readonly T[],
  query: ListQuery,
  fields: ListFields<T>,
): ListPage<T> {
  let predicate: Predicate<T> | undefined;
  if (query.filter !== undefined && query.filter.trim() !== '') {
    try {
      predicate = compileFilter(query.filter, fields);
    } catch (error) {
      if (error instanceof FilterSyntaxError) throw validationError({ filter: error.message });
      throw error;
    }
  }
  const order = query.sort !== undefined && query.sort.trim() !== '' ? compileSort(query.sort, fields) : () => 0;
  const selected = (predicate ? records.filter(predicate) : [...records]).sort((a, b) => order(a, b) || a.id - b.id);
  const items = selected.slice(query.offset, query.offset + query.limit);
  return { offset: query.offset, limit: items.length, total: selected.length, items };
}
