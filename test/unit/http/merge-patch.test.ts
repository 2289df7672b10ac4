import { describe, expect, it } from 'vitest';
import { mergePatch } from '../../../shared/http/merge-patch';
import { MAX_JSON_DEPTH } from '../../../shared/http/json-depth';

describe('mergePatch: RFC 7396 Appendix A test vectors', () => {
  const vectors: ReadonlyArray<readonly [original: unknown, patch: unknown, result: unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];

  it.each(vectors.map(([original, patch, result], index) => ({ index: index + 1, original, patch, result })))(
    'vector $index: $original + $patch',
    ({ original, patch, result }) => {
      expect(mergePatch(original, patch)).toStrictEqual(result);
    },
  );
});

describe('mergePatch: beyond the vectors', () => {
  it('keeps members the patch does not name, at every depth', () => {
    const target = { name: 'n', auth: { endpoint: 'https://e', region: 'r' }, tags: ['x'] };
    expect(mergePatch(target, { auth: { region: 's' } })).toStrictEqual({
      name: 'n',
      auth: { endpoint: 'https://e', region: 's' },
      tags: ['x'],
    });
  });

  it('does not modify the target or the patch', () => {
    const target = { a: { b: 1, c: 2 } };
    const patch = { a: { b: null, d: 3 } };
    mergePatch(target, patch);
    expect(target).toStrictEqual({ a: { b: 1, c: 2 } });
    expect(patch).toStrictEqual({ a: { b: null, d: 3 } });
  });

  it('returns ordinary objects', () => {
    const result = mergePatch({ a: 1 }, { b: 2 }) as object;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});

describe('mergePatch: "__proto__" is data', () => {
  const pristine = () => {
    const probe = {} as Record<string, unknown>;
    expect(probe.polluted).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
  };

  it('adds a "__proto__" member without touching any prototype', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    const result = mergePatch({}, patch) as Record<string, unknown>;
    pristine();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(result.polluted).toBeUndefined();
    expect(JSON.stringify(result)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('merges into an existing "__proto__" member as data, and removes it with null', () => {
    const target = JSON.parse('{"__proto__": {"x": 1}}') as unknown;
    const merged = mergePatch(target, JSON.parse('{"__proto__": {"y": 2}}'));
    expect(JSON.stringify(merged)).toBe('{"__proto__":{"x":1,"y":2}}');
    expect(mergePatch(target, JSON.parse('{"__proto__": null}'))).toStrictEqual({});
    pristine();
  });

  it('keeps nested "__proto__" and "constructor.prototype" as data', () => {
    const patch = JSON.parse(
      '{"a": {"__proto__": {"polluted": true}}, "constructor": {"prototype": {"polluted": true}}}',
    ) as unknown;
    const result = mergePatch({ a: {} }, patch);
    expect(JSON.stringify(result)).toBe(
      '{"a":{"__proto__":{"polluted":true}},"constructor":{"prototype":{"polluted":true}}}',
    );
    pristine();
  });
});

describe('mergePatch: nesting is bounded', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 1;
    for (let level = 0; level < depth; level += 1) value = { a: value };
    return value;
  };

  it(`merges a patch nested ${MAX_JSON_DEPTH} levels`, () => {
    expect(JSON.stringify(mergePatch({}, nested(MAX_JSON_DEPTH)))).toBe(JSON.stringify(nested(MAX_JSON_DEPTH)));
  });

  it('refuses a deeper patch with 10-1400 naming the body, also far beyond the stack limit', () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      expect(() => mergePatch({}, nested(depth))).toThrow(
        expect.objectContaining({
          code: '10-1400',
          extraDetails: { body: expect.stringContaining(`${MAX_JSON_DEPTH} levels`) },
        }),
      );
    }
  });
});
