import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { describeIssues, fieldPath } from '../../../shared/http/validation';

/** What a route reports for a value: the schema is parsed as the request layer does (reportInput). */
function rules(schema: z.ZodType, value: unknown, prefix?: string): Record<string, string> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) throw new Error('expected the value to be invalid');
  return describeIssues(result.error.issues, prefix);
}

const SECRET = 'sk_live_9f8e7d6c5b4a3210SECRET';

const Connection = z.strictObject({
  name: z.string().min(3).max(10),
  description: z.string().min(1).optional(),
  port: z.int().min(1).max(65535).optional(),
  ratio: z.number().gt(0).lt(1).optional(),
  read: z.boolean(),
  tags: z.array(z.string().max(5)).min(1).max(3).optional(),
  mode: z.enum(['batch', 'stream']).optional(),
  kind: z.literal('object_store').optional(),
  email: z.email().optional(),
  created: z.iso.datetime().optional(),
  auth: z
    .discriminatedUnion('type', [
      z.strictObject({ type: z.literal('a'), endpoint: z.url(), secret: z.string().min(40) }),
      z.strictObject({ type: z.literal('b'), token: z.string() }),
    ])
    .optional(),
});

const valid = { name: 'conn', read: true };

describe('describeIssues', () => {
  it('reports missing required fields as "is required"', () => {
    expect(rules(Connection, {})).toEqual({ name: 'is required', read: 'is required' });
  });

  it('reports a value of the wrong type by what is expected', () => {
    expect(rules(Connection, { name: 5, read: 'yes' })).toEqual({
      name: 'must be a string',
      read: 'must be true or false',
    });
    expect(rules(Connection, { ...valid, port: 'x' })).toEqual({ port: 'must be a number' });
    expect(rules(Connection, { ...valid, port: 1.5 })).toEqual({ port: 'must be an integer' });
    expect(rules(Connection, { ...valid, tags: 'a' })).toEqual({ tags: 'must be an array' });
    expect(rules(Connection, { ...valid, auth: 'a' })).toEqual({ auth: 'must be an object' });
  });

  it('reports a null for a required field as a wrong type, not as missing', () => {
    expect(rules(Connection, { ...valid, name: null })).toEqual({ name: 'must be a string' });
  });

  it('reports a whole body of the wrong type under "body"', () => {
    expect(rules(Connection, [])).toEqual({ body: 'must be an object' });
    expect(rules(Connection, 'text', 'query')).toEqual({ query: 'must be an object' });
  });

  it('reports string length bounds', () => {
    expect(rules(Connection, { ...valid, name: 'ab' })).toEqual({ name: 'must be at least 3 characters long' });
    expect(rules(Connection, { ...valid, name: 'abcdefghijk' })).toEqual({
      name: 'must be at most 10 characters long',
    });
    expect(rules(Connection, { ...valid, description: '' })).toEqual({ description: 'must not be empty' });
  });

  it('reports number bounds, inclusive and exclusive', () => {
    expect(rules(Connection, { ...valid, port: 0 })).toEqual({ port: 'must be ≥ 1' });
    expect(rules(Connection, { ...valid, port: 70000 })).toEqual({ port: 'must be ≤ 65535' });
    expect(rules(Connection, { ...valid, ratio: 0 })).toEqual({ ratio: 'must be > 0' });
    expect(rules(Connection, { ...valid, ratio: 1 })).toEqual({ ratio: 'must be < 1' });
  });

  it('reports array bounds', () => {
    expect(rules(Connection, { ...valid, tags: [] })).toEqual({ tags: 'must have at least one item' });
    expect(rules(Connection, { ...valid, tags: ['a', 'b', 'c', 'd'] })).toEqual({ tags: 'must have at most 3 items' });
    expect(rules(z.object({ ids: z.array(z.int()).min(2) }), { ids: [1] })).toEqual({
      ids: 'must have at least 2 items',
    });
  });

  it('says a missing discriminator is required, and lists its values', () => {
    expect(rules(Connection, { ...valid, auth: {} })).toEqual({ 'auth.type': 'is required; must be one of: a, b' });
    expect(rules(Connection, { ...valid, auth: { type: 'c' } })).toEqual({ 'auth.type': 'must be one of: a, b' });
  });

  it('reports every unknown key separately as "is not a known field"', () => {
    expect(rules(Connection, { ...valid, colour: 'red', size: 3 })).toEqual({
      colour: 'is not a known field',
      size: 'is not a known field',
    });
    expect(rules(Connection, { ...valid, auth: { type: 'b', token: 't', extra: 1 } })).toEqual({
      'auth.extra': 'is not a known field',
    });
  });

  it('lists the allowed values of an enum and names the one value of a literal', () => {
    expect(rules(Connection, { ...valid, mode: 'realtime' })).toEqual({ mode: 'must be one of: batch, stream' });
    expect(rules(Connection, { ...valid, kind: 'warehouse' })).toEqual({ kind: 'must be "object_store"' });
  });

  it('says a missing enum or literal field is required and what it must be', () => {
    const schema = z.object({ mode: z.enum(['batch', 'stream']), kind: z.literal('object_store') });
    expect(rules(schema, {})).toEqual({
      mode: 'is required; must be one of: batch, stream',
      kind: 'is required; must be "object_store"',
    });
  });

  it('lists the discriminator values of a discriminated union for an unknown discriminator', () => {
    expect(rules(Connection, { ...valid, auth: { type: 'c' } })).toEqual({ 'auth.type': 'must be one of: a, b' });
  });

  it('reports an unknown "__proto__" member like any other unknown key', () => {
    const described = rules(Connection, JSON.parse('{"name": "conn", "read": true, "__proto__": {"polluted": true}}'));
    expect(Object.entries(described)).toEqual([['__proto__', 'is not a known field']]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports a union that matches no shape', () => {
    expect(rules(z.object({ value: z.union([z.string(), z.number()]) }), { value: true })).toEqual({
      value: 'does not match any of the allowed shapes',
    });
  });

  it('names nested fields with dots and list elements with brackets', () => {
    expect(rules(Connection, { ...valid, auth: { type: 'a', endpoint: 'not a url', secret: 5 } })).toEqual({
      'auth.endpoint': 'must be a valid url',
      'auth.secret': 'must be a string',
    });
    expect(rules(Connection, { ...valid, tags: ['ok', 'fine', 'too-long'] })).toEqual({
      'tags[2]': 'must be at most 5 characters long',
    });
    expect(rules(z.object({ items: z.array(z.object({ id: z.int() })) }), { items: [{ id: 1 }, { id: 'x' }] })).toEqual(
      {
        'items[1].id': 'must be a number',
      },
    );
  });

  it('reports formats in words', () => {
    expect(rules(Connection, { ...valid, email: 'nope' })).toEqual({ email: 'must be an e-mail address' });
    expect(rules(Connection, { ...valid, created: 'yesterday' })).toEqual({ created: 'must be an ISO 8601 date-time' });
    expect(rules(z.object({ code: z.string().regex(/^[A-Z]{3}$/) }), { code: 'abc' })).toEqual({
      code: 'must match /^[A-Z]{3}$/',
    });
    expect(
      rules(z.object({ code: z.string().regex(/^[A-Z]{3}$/, 'must be three capital letters') }), { code: 'abc' }),
    ).toEqual({
      code: 'must be three capital letters',
    });
  });

  it('passes custom refinement messages through', () => {
    const schema = z
      .object({ from: z.int(), to: z.int() })
      .refine((value) => value.to > value.from, { message: 'must end after it starts', path: ['to'] });
    expect(rules(schema, { from: 2, to: 1 })).toEqual({ to: 'must end after it starts' });
  });

  it('joins different rules for the same field', () => {
    const schema = z.object({ code: z.string().min(5).regex(/^\d+$/, 'must contain digits only') });
    expect(rules(schema, { code: 'ab' })).toEqual({
      code: 'must be at least 5 characters long; must contain digits only',
    });
  });

  it('puts a prefix before every field', () => {
    expect(rules(Connection, { name: 'conn', read: 1, zz: 1 }, 'body')).toEqual({
      'body.read': 'must be true or false',
      'body.zz': 'is not a known field',
    });
  });

  it('never echoes the value sent', () => {
    const attempts: unknown[] = [
      { ...valid, name: SECRET },
      { ...valid, port: SECRET },
      { ...valid, mode: SECRET },
      { ...valid, kind: SECRET },
      { ...valid, email: SECRET },
      { ...valid, created: SECRET },
      { ...valid, tags: [SECRET] },
      { ...valid, auth: { type: SECRET } },
      { ...valid, auth: { type: 'a', endpoint: SECRET, secret: SECRET.slice(0, 20) } },
      { ...valid, auth: { type: 'b', token: 't', [SECRET]: 1 } },
    ];
    for (const attempt of attempts) {
      const described = rules(Connection, attempt);
      expect(Object.keys(described).length).toBeGreaterThan(0);
      const values = Object.values(described).join('\n');
      expect(values).not.toContain(SECRET);
      expect(values).not.toContain(SECRET.slice(0, 20));
    }
  });
});

describe('fieldPath', () => {
  it('joins names with dots and indexes with brackets', () => {
    expect(fieldPath([])).toBe('');
    expect(fieldPath(['auth', 'endpoint'])).toBe('auth.endpoint');
    expect(fieldPath(['tags', 2])).toBe('tags[2]');
    expect(fieldPath(['a', 0, 'b', 1, 2])).toBe('a[0].b[1][2]');
  });
});
