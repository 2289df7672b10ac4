import { validationError } from '../errors/app-error';
import { MAX_JSON_DEPTH } from './json-depth';

/**
 * JSON Merge Patch (RFC 7396): objects merge member by member, null removes a member, any
 * other value replaces. Works on plain JSON values only; "__proto__" is data, never a key
 * path into the prototype.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Applies `patch` to `target`. The recursion follows the patch's nesting, which request
 * parsing already bounds; a deeper patch from anywhere else is refused as 10-1400 rather
 * than overflowing the stack.
 */
export function mergePatch(target: unknown, patch: unknown): Json {
  return merge(target, patch, 1);
}

function merge(target: unknown, patch: unknown, depth: number): Json {
  if (!isObject(patch)) return patch as Json;
  if (depth > MAX_JSON_DEPTH)
    throw validationError({ body: `must not nest objects and arrays deeper than ${MAX_JSON_DEPTH} levels` });
  const result: Record<string, Json> = Object.create(null) as Record<string, Json>;
  if (isObject(target)) for (const [key, value] of Object.entries(target)) result[key] = value;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = merge(result[key], value, depth + 1);
  }
  return { ...result };
}
