import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../shared/http/json-depth';

/** Nesting depth of a parsed value, the reference the raw-text scan must agree with. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

describe('exceedsJsonDepth: an iterative scan of the raw text', () => {
  it('counts brackets, not brackets inside strings or after escapes', () => {
    expect(exceedsJsonDepth('{"a":[1,{"b":2}]}', 3)).toBe(false);
    expect(exceedsJsonDepth('{"a":[1,{"b":2}]}', 2)).toBe(true);
    expect(exceedsJsonDepth('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(exceedsJsonDepth('["\\"[[[[", "\\\\", []]', 1)).toBe(true);
    expect(exceedsJsonDepth('["\\"[[[[", "\\\\"]', 1)).toBe(false);
    expect(exceedsJsonDepth('"[[["', 0)).toBe(false);
  });

  it('agrees with the depth of the parsed value for any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.nat(10), (value, limit) => {
        const text = JSON.stringify(value);
        expect(exceedsJsonDepth(text, limit)).toBe(depthOf(value) > limit);
      }),
    );
  });

  it(`answers for 40,000 levels without recursion (bound ${MAX_JSON_DEPTH})`, () => {
    const deep = '['.repeat(40_000) + ']'.repeat(40_000);
    expect(exceedsJsonDepth(deep)).toBe(true);
    expect(exceedsJsonDepth('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBe(false);
  });
});
