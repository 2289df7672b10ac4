import { describe, expect, it } from 'vitest';
import { applyListQuery } from '../../../shared/http/list-query';
import { FIELDS, ROWS, ids, query, sorted, sortRule, type Row } from './list-query-support';

describe('applyListQuery: envelope and paging', () => {
  it('returns everything ordered by id without filter or sort', () => {
    const shuffled = [ROWS[3]!, ROWS[0]!, ROWS[4]!, ROWS[2]!, ROWS[1]!];
    expect(applyListQuery(shuffled, query(), FIELDS)).toEqual({ offset: 0, limit: 5, total: 5, items: [...ROWS] });
  });

  it('treats an empty or blank filter and sort as absent', () => {
    expect(applyListQuery(ROWS, query({ filter: '   ', sort: '' }), FIELDS).total).toBe(5);
    expect(applyListQuery(ROWS, query({ filter: '', sort: ' ' }), FIELDS).items.map((row) => row.id)).toEqual([
      1, 2, 3, 4, 5,
    ]);
  });

  it('skips offset records and returns at most limit, reporting the count returned and the total matching', () => {
    const page = applyListQuery(ROWS, query({ offset: 1, limit: 2 }), FIELDS);
    expect(page.offset).toBe(1);
    expect(page.limit).toBe(2);
    expect(page.total).toBe(5);
    expect(page.items.map((row) => row.id)).toEqual([2, 3]);
  });

  it('reports a short last page with the number of items actually returned', () => {
    const page = applyListQuery(ROWS, query({ offset: 3, limit: 10 }), FIELDS);
    expect(page).toMatchObject({ offset: 3, limit: 2, total: 5 });
    expect(page.items.map((row) => row.id)).toEqual([4, 5]);
  });

  it('returns no items past the end but still the total', () => {
    expect(applyListQuery(ROWS, query({ offset: 50, limit: 10 }), FIELDS)).toEqual({
      offset: 50,
      limit: 0,
      total: 5,
      items: [],
    });
  });

  it('counts the total after filtering, before paging', () => {
    const page = applyListQuery(ROWS, query({ filter: 'size ge 10', offset: 0, limit: 1 }), FIELDS);
    expect(page.total).toBe(3);
    expect(page.limit).toBe(1);
    expect(page.items.map((row) => row.id)).toEqual([1]);
  });

  it('does not reorder the caller array', () => {
    const rows = [ROWS[2]!, ROWS[0]!];
    applyListQuery(rows, query({ sort: 'name' }), FIELDS);
    expect(rows.map((row) => row.id)).toEqual([3, 1]);
  });
});

describe('applyListQuery: comparison operators', () => {
  it('eq and ne compare strings exactly', () => {
    expect(ids("name eq 'beta'")).toEqual([2]);
    expect(ids("name eq 'BETA'")).toEqual([]);
    expect(ids("name ne 'beta'")).toEqual([1, 3, 4, 5]);
  });

  it('gt, ge, lt and le order strings by code unit', () => {
    expect(ids("name gt 'beta'")).toEqual([4]);
    expect(ids("name ge 'beta'")).toEqual([2, 4]);
    expect(ids("name lt 'beta'")).toEqual([1, 3]);
    expect(ids("name le 'Alpha'")).toEqual([1]);
  });

  it('co, sw and ew ignore case', () => {
    expect(ids("name co 'AY'")).toEqual([4]);
    expect(ids("name co 'a'")).toEqual([1, 2, 4]);
    expect(ids("name sw 'AL'")).toEqual([1]);
    expect(ids("name ew 'RAY'")).toEqual([4]);
    expect(ids("name ew 'x'")).toEqual([]);
  });

  it('compares integers numerically, negative and decimal literals included', () => {
    expect(ids('size eq 20')).toEqual([2, 4]);
    expect(ids('size ne 20')).toEqual([1, 3, 5]);
    expect(ids('size gt 10')).toEqual([2, 4]);
    expect(ids('size ge 10')).toEqual([1, 2, 4]);
    expect(ids('size lt 0')).toEqual([3]);
    expect(ids('size le -5')).toEqual([3]);
    expect(ids('size eq -5')).toEqual([3]);
    expect(ids('size gt 9.5')).toEqual([1, 2, 4]);
    expect(ids('size lt 100')).toEqual([1, 2, 3, 4]);
  });

  it('compares booleans with eq and ne', () => {
    expect(ids('active eq true')).toEqual([1, 3]);
    expect(ids('active eq false')).toEqual([2, 4]);
    expect(ids('active ne true')).toEqual([2, 4, 5]);
  });

  it('null matches an absent value with eq and a present one with ne', () => {
    expect(ids('name eq null')).toEqual([5]);
    expect(ids('name ne null')).toEqual([1, 2, 3, 4]);
    expect(ids('size eq null')).toEqual([5]);
    expect(ids('active eq null')).toEqual([5]);
    expect(ids('created ne null')).toEqual([1, 2, 3, 4, 5]);
    expect(ids('created eq null', [{ id: 9 }, ROWS[0]!])).toEqual([9]);
  });

  it('co on a string list means "has an element equal to", ignoring case', () => {
    expect(ids("tags co 'prod'")).toEqual([1, 4]);
    expect(ids("tags co 'eu'")).toEqual([1]);
    expect(ids("tags co 'pro'")).toEqual([]);
    expect(ids("tags co 'none'")).toEqual([]);
  });

  it('ne on a date-time includes records without one, like every other type', () => {
    const rows: Row[] = [{ id: 1, created: '2024-01-01T00:00:00Z' }, { id: 2 }];
    expect(ids("created ne '2024-01-01T00:00:00Z'", rows)).toEqual([2]);
  });

  it('sorts date-times by instant, not by their text', () => {
    const rows: Row[] = [
      { id: 1, created: '2024-01-01T10:00:00+05:00' },
      { id: 2, created: '2024-01-01T06:00:00Z' },
      { id: 3, created: '2024-01-01T04:00:00Z' },
    ];
    // 04:00Z, then 10:00+05:00 (05:00Z), then 06:00Z; by text it would be 3, 2, 1.
    expect(sorted('created', rows)).toEqual([3, 1, 2]);
  });

  it('compares date-times as instants, whatever their notation', () => {
    expect(ids("created eq '2024-02-01T00:00:00Z'")).toEqual([2, 5]);
    expect(ids("created gt '2024-01-15T00:00:00Z'")).toEqual([2, 3, 5]);
    expect(ids("created lt '2024-01-01T00:00:00Z'")).toEqual([4]);
    expect(ids("created le '2024-01-01T00:00:00.000+00:00'")).toEqual([1, 4]);
    expect(ids("created ge '2024-03-01T10:30:00Z'")).toEqual([3]);
    expect(ids("created ne '2024-02-01T01:00:00+01:00'")).toEqual([1, 3, 4]);
  });
});

describe('applyListQuery: expression grammar', () => {
  it('combines terms with and, or and not', () => {
    expect(ids('active eq true and size gt 0')).toEqual([1]);
    expect(ids("name eq 'beta' or size lt 0")).toEqual([2, 3]);
    expect(ids('not active eq true')).toEqual([2, 4, 5]);
    expect(ids('not not active eq true')).toEqual([1, 3]);
  });

  it('binds and tighter than or', () => {
    // a or (b and c), not (a or b) and c
    expect(ids("name eq 'Alpha' or size eq 20 and active eq true")).toEqual([1]);
    expect(ids("size eq 20 and active eq false or name eq 'Alpha'")).toEqual([1, 2, 4]);
  });

  it('lets parentheses override precedence', () => {
    expect(ids("(name eq 'Alpha' or size eq 20) and active eq true")).toEqual([1]);
    expect(ids("(name eq 'Alpha' or size eq 20) and active eq false")).toEqual([2, 4]);
    expect(ids('not (size eq 20 or size eq 10)')).toEqual([3, 5]);
    expect(ids('((((size eq 10))))')).toEqual([1]);
  });

  it('applies not to the next term only', () => {
    expect(ids('not size eq 20 and active eq true')).toEqual([1, 3]);
    expect(ids("not size eq 20 or name eq 'beta'")).toEqual([1, 2, 3, 5]);
  });

  it('accepts keywords, operators and literals in any case', () => {
    expect(ids("NOT active EQ TRUE AND size Ge 20 OR name SW 'al'")).toEqual([1, 2, 4]);
    expect(ids('active eq False')).toEqual([2, 4]);
    expect(ids('name EQ NULL')).toEqual([5]);
  });

  it("reads '' inside a quoted string as one quote", () => {
    expect(ids("name eq 'O''Brien'")).toEqual([3]);
    expect(ids("name co ''''")).toEqual([3]);
    expect(ids("name eq ''", [{ id: 7, name: '' }, ...ROWS])).toEqual([7]);
  });

  it('keeps keywords, parentheses and spaces inside quotes as text', () => {
    const rows: Row[] = [
      { id: 1, name: "x and (y) or not z eq 'w'" },
      { id: 2, name: 'x' },
    ];
    expect(ids("name eq 'x and (y) or not z eq ''w'''", rows)).toEqual([1]);
  });

  it('needs no spaces around parentheses and quotes and tolerates extra whitespace', () => {
    expect(ids("(name eq'beta')or(size eq 10)")).toEqual([1, 2]);
    expect(ids("  name\teq\n'beta'  ")).toEqual([2]);
  });
});

describe('applyListQuery: sort', () => {
  it('sorts ascending by default and descending with -', () => {
    expect(sorted('size')).toEqual([3, 1, 2, 4, 5]);
    expect(sorted('+size')).toEqual([3, 1, 2, 4, 5]);
    expect(sorted('-size')).toEqual([5, 2, 4, 1, 3]);
  });

  it('breaks ties by id so pages are stable', () => {
    const twins: Row[] = [
      { id: 9, size: 1 },
      { id: 3, size: 1 },
      { id: 6, size: 1 },
    ];
    expect(sorted('size', twins)).toEqual([3, 6, 9]);
    expect(sorted('-size', twins)).toEqual([3, 6, 9]);
  });

  it('sorts text ignoring case', () => {
    expect(sorted('name')).toEqual([1, 2, 4, 3, 5]);
    expect(sorted('-name')).toEqual([5, 3, 4, 2, 1]);
  });

  it('puts absent values last when ascending', () => {
    expect(sorted('active')).toEqual([2, 4, 1, 3, 5]);
  });

  it('sorts date-times chronologically', () => {
    expect(sorted('created', [ROWS[1]!, ROWS[3]!, ROWS[0]!])).toEqual([4, 1, 2]);
  });

  it('applies up to three keys in order', () => {
    expect(sorted('-size,name')).toEqual([5, 2, 4, 1, 3]);
    expect(sorted('active, -size , name')).toEqual([2, 4, 1, 3, 5]);
    expect(sorted('-active,-size,-name')).toEqual([5, 1, 3, 4, 2]);
  });

  it('refuses more than three keys', () => {
    expect(sortRule('name,size,active,created')).toBe('at most 3 sort keys');
  });

  it('refuses unknown fields, list fields, empty keys and bad prefixes, naming the sortable fields', () => {
    const expected = (key: string) =>
      `'${key}' is not a sort key; use [-]field with one of: name, size, active, created`;
    expect(sortRule('colour')).toBe(expected('colour'));
    expect(sortRule('tags')).toBe(expected('tags'));
    expect(sortRule('name,')).toBe(expected(''));
    expect(sortRule('--name')).toBe(expected('--name'));
    expect(sortRule('name desc')).toBe(expected('name desc'));
  });

  it('combines filter, sort and paging', () => {
    const page = applyListQuery(ROWS, query({ filter: 'size ne null', sort: '-size', offset: 1, limit: 2 }), FIELDS);
    expect(page).toMatchObject({ offset: 1, limit: 2, total: 4 });
    expect(page.items.map((row) => row.id)).toEqual([4, 1]);
  });
});
