import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyListQuery, type ListFields } from '../../../shared/http/list-query';

/**
 * Property: for random records and random well-formed filters, applyListQuery selects exactly
 * the records a straightforward reference predicate selects. Filters are generated as trees
 * and printed with random keyword case, minimal parentheses by precedence (and binds tighter
 * than or) and occasional redundant ones.
 */
interface Row {
  readonly id: number;
  readonly name?: string | null;
  readonly size?: number | null;
  readonly active?: boolean | null;
  readonly tags: readonly string[];
  readonly created: string;
}

const FIELDS: ListFields<Row> = {
  name: { type: 'string', value: (row) => row.name },
  size: { type: 'integer', value: (row) => row.size },
  active: { type: 'boolean', value: (row) => row.active },
  tags: { type: 'string-list', value: (row) => row.tags },
  created: { type: 'datetime', value: (row) => row.created },
};

/** A few instants, each with notations that denote it. */
const INSTANTS = [
  ['2024-01-01T00:00:00Z', '2024-01-01T01:00:00+01:00', '2024-01-01T00:00:00.000Z'],
  ['2024-06-15T12:00:00Z', '2024-06-15T08:00:00-04:00'],
  ['2025-02-28T23:59:59Z', '2025-03-01T00:59:59+01:00'],
] as const;

const text = fc.string({ unit: fc.constantFrom('a', 'A', 'b', "'", ' ', 'É', 'é'), maxLength: 3 });
const absentOr = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(arbitrary, fc.constant(null), fc.constant(undefined));

const rowsArbitrary = fc
  .array(
    fc.record({
      name: absentOr(text),
      size: absentOr(fc.integer({ min: -3, max: 3 })),
      active: absentOr(fc.boolean()),
      tags: fc.array(text, { maxLength: 3 }),
      created: fc.constantFrom(...INSTANTS.map((notations) => notations[0])),
    }),
    { maxLength: 12 },
  )
  .map((rows) => rows.map((row, index): Row => ({ id: index + 1, ...row })));

type Literal = string | number | boolean | null;
type FieldName = 'name' | 'size' | 'active' | 'tags' | 'created';
type Comparison = { kind: 'cmp'; field: FieldName; op: string; value: Literal; datetime?: string };
type Node = Comparison | { kind: 'not'; inner: Node } | { kind: 'and' | 'or'; left: Node; right: Node };

const ORDER_OPS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;
const eqOrNe = fc.constantFrom('eq', 'ne');

const comparison: fc.Arbitrary<Comparison> = fc.oneof(
  fc.record({
    kind: fc.constant('cmp' as const),
    field: fc.constant('name' as const),
    op: fc.constantFrom(...ORDER_OPS, 'co', 'sw', 'ew'),
    value: text as fc.Arbitrary<Literal>,
  }),
  fc.record({
    kind: fc.constant('cmp' as const),
    field: fc.constant('size' as const),
    op: fc.constantFrom(...ORDER_OPS),
    value: fc.integer({ min: -4, max: 4 }) as fc.Arbitrary<Literal>,
  }),
  fc.record({
    kind: fc.constant('cmp' as const),
    field: fc.constant('active' as const),
    op: eqOrNe,
    value: fc.boolean() as fc.Arbitrary<Literal>,
  }),
  fc.record({
    kind: fc.constant('cmp' as const),
    field: fc.constantFrom('name' as const, 'size' as const, 'active' as const),
    op: eqOrNe,
    value: fc.constant(null),
  }),
  fc.record({
    kind: fc.constant('cmp' as const),
    field: fc.constant('tags' as const),
    op: fc.constant('co'),
    value: text as fc.Arbitrary<Literal>,
  }),
  fc
    .record({
      op: fc.constantFrom(...ORDER_OPS),
      instant: fc.integer({ min: 0, max: INSTANTS.length - 1 }),
      notation: fc.nat(),
    })
    .map(({ op, instant, notation }): Comparison => {
      const notations = INSTANTS[instant]!;
      return {
        kind: 'cmp',
        field: 'created',
        op,
        value: notations[0],
        datetime: notations[notation % notations.length]!,
      };
    }),
);

const { tree } = fc.letrec<{ tree: Node }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    comparison,
    fc.record({ kind: fc.constant('not' as const), inner: tie('tree') }),
    fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), left: tie('tree'), right: tie('tree') }),
  ),
}));

/** Random upper/lower case per character, driven by a seed. */
function caseOf(word: string, seed: number): string {
  return [...word].map((char, index) => ((seed >> index) & 1 ? char.toUpperCase() : char)).join('');
}

function quote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function print(node: Node, seed: number, extraParens: number): string {
  const keyword = (word: string) => caseOf(word, seed + word.length);
  const child = (inner: Node, needsParens: boolean, salt: number): string => {
    const printed = print(inner, seed * 31 + salt, extraParens >> 1);
    return needsParens || (extraParens & 1) === 1 ? `(${printed})` : printed;
  };
  switch (node.kind) {
    case 'cmp': {
      const value =
        node.datetime !== undefined
          ? quote(node.datetime)
          : typeof node.value === 'string'
            ? quote(node.value)
            : node.value === null || typeof node.value === 'boolean'
              ? keyword(String(node.value))
              : String(node.value);
      return `${node.field} ${keyword(node.op)} ${value}`;
    }
    case 'not':
      return `${keyword('not')} ${child(node.inner, node.inner.kind === 'and' || node.inner.kind === 'or', 1)}`;
    case 'and':
      return `${child(node.left, node.left.kind === 'or', 2)} ${keyword('and')} ${child(node.right, node.right.kind === 'or', 3)}`;
    case 'or':
      return `${child(node.left, false, 4)} ${keyword('or')} ${child(node.right, false, 5)}`;
  }
}

function ordered<V extends string | number>(own: V, other: V, op: string): boolean {
  switch (op) {
    case 'eq':
      return own === other;
    case 'ne':
      return own !== other;
    case 'gt':
      return own > other;
    case 'ge':
      return own >= other;
    case 'lt':
      return own < other;
    default:
      return own <= other;
  }
}

/** The reference semantics, written from the grammar's documentation. */
function matches(node: Node, row: Row): boolean {
  switch (node.kind) {
    case 'not':
      return !matches(node.inner, row);
    case 'and':
      return matches(node.left, row) && matches(node.right, row);
    case 'or':
      return matches(node.left, row) || matches(node.right, row);
    case 'cmp':
      break;
  }
  const own: unknown = row[node.field];
  if (node.value === null) return (own === null || own === undefined) === (node.op === 'eq');
  switch (node.field) {
    case 'name': {
      if (typeof own !== 'string') return node.op === 'ne';
      const wanted = node.value as string;
      if (node.op === 'co') return own.toLowerCase().includes(wanted.toLowerCase());
      if (node.op === 'sw') return own.toLowerCase().startsWith(wanted.toLowerCase());
      if (node.op === 'ew') return own.toLowerCase().endsWith(wanted.toLowerCase());
      return ordered(own, wanted, node.op);
    }
    case 'size':
      return typeof own === 'number' ? ordered(own, node.value as number, node.op) : node.op === 'ne';
    case 'active':
      return (own === node.value) === (node.op === 'eq');
    case 'tags':
      return row.tags.some((tag) => tag.toLowerCase() === (node.value as string).toLowerCase());
    case 'created':
      return ordered(Date.parse(row.created), Date.parse(node.value as string), node.op);
    default:
      throw new Error(`no reference semantics for ${String(node.field)}`);
  }
}

describe('applyListQuery filter (property)', () => {
  it('selects exactly what the reference predicate selects', () => {
    fc.assert(
      fc.property(rowsArbitrary, tree, fc.nat(), fc.nat({ max: 255 }), (rows, node, seed, extraParens) => {
        const filter = print(node, seed, extraParens);
        const page = applyListQuery(rows, { offset: 0, limit: 1000, filter }, FIELDS);
        const expected = rows.filter((row) => matches(node, row)).map((row) => row.id);
        expect(
          page.items.map((row) => row.id),
          filter,
        ).toEqual(expected);
        expect(page.total).toBe(expected.length);
      }),
      { numRuns: 1000, seed: 20250304 },
    );
  });

  it('pages through a sorted result without losing or repeating a record', () => {
    fc.assert(
      fc.property(
        rowsArbitrary,
        fc.constantFrom('name', '-name', 'size', '-size,name', 'active,-created', 'created,size,-name'),
        fc.integer({ min: 1, max: 5 }),
        (rows, sort, pageSize) => {
          const all = applyListQuery(rows, { offset: 0, limit: 1000, sort }, FIELDS).items.map((row) => row.id);
          const paged: number[] = [];
          for (let offset = 0; offset < rows.length; offset += pageSize) {
            const page = applyListQuery(rows, { offset, limit: pageSize, sort }, FIELDS);
            expect(page.total).toBe(rows.length);
            expect(page.limit).toBe(page.items.length);
            paged.push(...page.items.map((row) => row.id));
          }
          expect(paged).toEqual(all);
          expect([...all].sort((a, b) => a - b)).toEqual(rows.map((row) => row.id));
        },
      ),
      { numRuns: 200, seed: 20250305 },
    );
  });
});
