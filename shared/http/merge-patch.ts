/**
 * JSON Merge Patch (RFC 7396): objects merge member by member, null removes a member, any
 * other value replaces. Works on plain JSON values only; "__proto__" is data, never a key
 * path into the prototype.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mergePatch(target: unknown, patch: unknown): Json {
  if (!isObject(patch)) return patch as Json;
  const result: Record<string, Json> = Object.create(null) as Record<string, Json>;
  if (isObject(target)) for (const [key, value] of Object.entries(target)) result[key] = value;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return { ...result };
}
