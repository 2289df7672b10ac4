import { describe, expect, it } from 'vitest';
import { EXCERPT_LENGTH } from '../../../shared/errors/app-error';
import { filterRule, ids, sortRule } from './list-query-support';

describe('applyListQuery: malformed filters are 10-1400 naming the problem', () => {
  it('refuses names of Object.prototype members as fields, in filters and sorts', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(filterRule(`${name} eq 'x'`), name).toContain(`unknown field '${name}'`);
      expect(sortRule(name), name).toContain(`'${name}' is not a sort key`);
    }
  });

  it('refuses an unknown field and lists the filterable ones', () => {
    const rule = filterRule("colour eq 'red'");
    expect(rule).toContain("unknown field 'colour'");
    expect(rule).toContain('name, size, active, tags, created');
  });

  it('refuses field names in another case', () => {
    expect(filterRule("NAME eq 'x'")).toContain("unknown field 'NAME'");
  });

  it('refuses an unknown operator', () => {
    const rule = filterRule("name like 'x'");
    expect(rule).toContain('expected an operator (eq, ne, gt, ge, lt, le, co, sw, ew)');
    expect(rule).toContain("'like' at position 6");
  });

  it('refuses an operator that does not apply to the field type', () => {
    expect(filterRule("size co '1'")).toBe("operator 'co' does not apply to integer field 'size'");
    expect(filterRule('active gt true')).toBe("operator 'gt' does not apply to boolean field 'active'");
    expect(filterRule("tags eq 'prod'")).toBe("operator 'eq' does not apply to string-list field 'tags'");
    expect(filterRule("created sw '2024'")).toBe("operator 'sw' does not apply to datetime field 'created'");
  });

  it('refuses a value of the wrong type', () => {
    expect(filterRule("size eq '10'")).toBe("field 'size' needs a number, not ''10'' at position 9");
    expect(filterRule('active eq 1')).toBe("field 'active' needs true or false, not '1' at position 11");
    expect(filterRule('name eq 5')).toBe("field 'name' needs a quoted text, not '5' at position 9");
    expect(filterRule('name eq true')).toContain("field 'name' needs a quoted text");
    expect(filterRule('tags co 3')).toContain("field 'tags' needs a quoted text");
    expect(filterRule('created gt 2024')).toContain("field 'created' needs an ISO 8601 date-time in quotes");
    expect(filterRule("created gt 'yesterday'")).toContain("field 'created' needs an ISO 8601 date-time in quotes");
  });

  it('refuses null with an ordering operator', () => {
    expect(filterRule('size gt null')).toBe('null can only be compared with eq or ne');
    expect(filterRule('tags co null')).toBe('null can only be compared with eq or ne');
  });

  it('refuses a missing value, operator or field', () => {
    expect(filterRule('name eq')).toBe('expected a value but found end of expression');
    expect(filterRule('name')).toContain('expected an operator');
    expect(filterRule('name eq eq')).toBe("expected a value but found 'eq' at position 9");
    expect(filterRule("name eq 'x' and")).toBe('expected a field name but found end of expression');
    expect(filterRule("or name eq 'x'")).toContain("unknown field 'or'");
    expect(filterRule("'x' eq name")).toBe("expected a field name but found ''x'' at position 1");
  });

  it('refuses an unterminated string and says where it starts', () => {
    expect(filterRule("name eq 'abc")).toBe('unterminated string starting at position 9');
    expect(filterRule("name eq 'it''s")).toBe('unterminated string starting at position 9');
  });

  it('refuses characters outside the grammar', () => {
    expect(filterRule("name = 'x'")).toBe("unexpected character '=' at position 6");
    expect(filterRule('size eq 1e3')).toBe("unexpected character '1' at position 9");
    expect(filterRule('size eq 1.2.3')).toContain('unexpected character');
    expect(filterRule('size eq "1"')).toBe(`unexpected character '"' at position 9`);
  });

  it('refuses unbalanced parentheses', () => {
    expect(filterRule("(name eq 'x'")).toBe("expected ')' but found end of expression");
    expect(filterRule("name eq 'x')")).toBe("unexpected ')' at position 12");
    expect(filterRule('()')).toBe("expected a field name but found ')' at position 2");
  });

  it('refuses trailing tokens after a complete expression', () => {
    expect(filterRule("name eq 'x' size eq 1")).toBe("unexpected 'size' at position 13");
    expect(filterRule("name eq 'x' 'y'")).toBe("unexpected ''y'' at position 13");
  });

  it('accepts 16 levels of parentheses and refuses 17', () => {
    const nested = (depth: number) => `${'('.repeat(depth)}size eq 10${')'.repeat(depth)}`;
    expect(ids(nested(16))).toEqual([1]);
    expect(filterRule(nested(17))).toBe('nesting deeper than 16');
  });

  it('accepts 200 tokens and refuses 201', () => {
    // "size eq 10" is 3 tokens and each "or size eq 10" adds 4: 199 tokens with 49 of them.
    const tokens199 = ['size eq 10', ...Array.from({ length: 49 }, () => 'or size eq 10')].join(' ');
    expect(ids(`not ${tokens199}`)).toEqual([1, 2, 3, 4, 5]);
    expect(filterRule(`not not ${tokens199}`)).toBe('expression longer than 200 tokens');
  });
});

describe('applyListQuery: refusals repeat the query only as short escaped excerpts', () => {
  const long = `x${'y'.repeat(3 * EXCERPT_LENGTH)}`;
  const shown = `${long.slice(0, EXCERPT_LENGTH)}…`;

  it('cuts a long sort key, an unknown field and a string literal', () => {
    expect(sortRule(long)).toBe(`'${shown}' is not a sort key; use [-]field with one of: name, size, active, created`);
    expect(filterRule(`${long} eq 1`)).toBe(
      `unknown field '${shown}'; filterable fields: name, size, active, tags, created`,
    );
    expect(filterRule(`size eq '${long}'`)).toBe(`field 'size' needs a number, not ''${shown}'' at position 9`);
  });

  it('escapes control characters instead of repeating them', () => {
    expect(filterRule('name eq 1 \u0000')).toBe("unexpected character '\\u0000' at position 11");
    expect(sortRule('name\r\nx')).toContain("'name\\r\\nx' is not a sort key");
    expect(filterRule("size eq 'a\u001b[31m'")).toContain("'a\\u001b[31m'");
  });
});
