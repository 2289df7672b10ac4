/**
 * The `list-filter` format as the OpenAPI document defines it (the filter parameter's
 * description, after docs/list-query.md), checked the way a client generated from the
 * document could: written from the grammar, not from the service's parser, so the contract
 * test notices when the two drift apart.
 *
 *   filter := or          or := and ("or" and)*          and := unary ("and" unary)*
 *   unary  := "not" unary | "(" or ")" | field op value
 *   op     := eq | ne | gt | ge | lt | le | co | sw | ew
 *   value  := 'text' ('' is a quote) | number | true | false | null
 */

export type ListFieldType = 'string' | 'integer' | 'boolean' | 'datetime' | 'string-list';
/** The parameter's `x-list-fields`: field name → type. */
export type ListFieldTypes = Readonly<Record<string, ListFieldType>>;

/** Limits the format states: tokens in an expression, and levels of "not" and parentheses around a parenthesised part. */
const MAX_TOKENS = 200;
const MAX_NESTING = 16;
const OPERATORS: Readonly<Record<ListFieldType, readonly string[]>> = {
  string: ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'co', 'sw', 'ew'],
  integer: ['eq', 'ne', 'gt', 'ge', 'lt', 'le'],
  boolean: ['eq', 'ne'],
  datetime: ['eq', 'ne', 'gt', 'ge', 'lt', 'le'],
  'string-list': ['co'],
};
const ALL_OPERATORS = new Set(Object.values(OPERATORS).flat());
/** ISO 8601 date-time as RFC 3339 writes it; the format asks for one in quotes. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

type Token = { kind: 'word'; text: string } | { kind: 'text'; text: string } | { kind: 'number' } | { kind: '(' | ')' };

class Refused extends Error {}

function tokens(source: string): Token[] {
  const found: Token[] = [];
  const pattern = /\s+|\(|\)|'(?:[^']|'')*'|-?\d+(?:\.\d+)?(?![\w.])|[A-Za-z_]\w*/y;
  while (pattern.lastIndex < source.length) {
    const start = pattern.lastIndex;
    const match = pattern.exec(source);
    if (!match) throw new Refused(`unreadable at position ${start + 1}`);
    const text = match[0];
    if (/^\s/.test(text)) continue;
    if (text === '(' || text === ')') found.push({ kind: text });
    else if (text.startsWith("'")) found.push({ kind: 'text', text: text.slice(1, -1).replace(/''/g, "'") });
    else if (/^-?\d/.test(text)) found.push({ kind: 'number' });
    else found.push({ kind: 'word', text });
    if (found.length > MAX_TOKENS) throw new Refused(`more than ${MAX_TOKENS} tokens`);
  }
  return found;
}

/** Why `source` is not a filter over `fields`; undefined when it is one. */
export function filterFormatProblem(source: string, fields: ListFieldTypes): string | undefined {
  // An empty or blank filter is no filter.
  if (source.trim() === '') return undefined;
  try {
    const list = tokens(source);
    let at = 0;
    const keyword = (word: string) => {
      const next = list[at];
      return next?.kind === 'word' && next.text.toLowerCase() === word;
    };
    const or = (depth: number): void => {
      if (depth > MAX_NESTING) throw new Refused(`nested deeper than ${MAX_NESTING}`);
      and(depth);
      while (keyword('or')) {
        at += 1;
        and(depth);
      }
    };
    const and = (depth: number): void => {
      unary(depth);
      while (keyword('and')) {
        at += 1;
        unary(depth);
      }
    };
    const unary = (depth: number): void => {
      if (keyword('not')) {
        at += 1;
        unary(depth + 1);
      } else if (list[at]?.kind === '(') {
        at += 1;
        or(depth + 1);
        if (list[at]?.kind !== ')') throw new Refused("expected ')'");
        at += 1;
      } else {
        comparison();
      }
    };
    const comparison = (): void => {
      const field = list[at];
      if (field?.kind !== 'word' || !Object.hasOwn(fields, field.text))
        throw new Refused('expected a field of the resource');
      const type = fields[field.text]!;
      const operator = list[at + 1];
      const op = operator?.kind === 'word' ? operator.text.toLowerCase() : '';
      if (!ALL_OPERATORS.has(op)) throw new Refused('expected an operator');
      const value = list[at + 2];
      at += 3;
      if (value?.kind === 'word' && value.text.toLowerCase() === 'null') {
        if (op !== 'eq' && op !== 'ne') throw new Refused('null compares with eq or ne only');
        return;
      }
      if (!OPERATORS[type].includes(op)) throw new Refused(`${op} does not apply to a ${type} field`);
      const word = value?.kind === 'word' ? value.text.toLowerCase() : '';
      const fits =
        type === 'integer'
          ? value?.kind === 'number'
          : type === 'boolean'
            ? word === 'true' || word === 'false'
            : type === 'datetime'
              ? value?.kind === 'text' && DATE_TIME.test(value.text)
              : value?.kind === 'text';
      if (!fits) throw new Refused(`not a value for a ${type} field`);
    };
    or(0);
    if (at < list.length) throw new Refused('unexpected text after the expression');
    return undefined;
  } catch (error) {
    if (error instanceof Refused) return `not a list-filter: ${error.message}`;
    throw error;
  }
}
