/**
 * JSON as the infra tests read it (synthesized templates, state machine definitions, policy
 * documents): a recursive value type and accessors that walk a path through it. A path that
 * does not lead where a test expects fails with the path in the message, where untyped
 * navigation would have failed with "cannot read properties of undefined".
 */
import * as z from 'zod';

/** Any JSON value. */
export const Json = z.json();
export type Json = z.infer<typeof Json>;

/** A JSON object. */
export const JsonObject = z.record(z.string(), Json);
export type JsonObject = z.infer<typeof JsonObject>;

/** A step of a path: a member name, or an index into an array. */
export type Step = string | number;

/** Whether a value is a JSON object (not null, not an array). */
export function isJsonObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const describePath = (path: readonly Step[]): string =>
  path.length === 0 ? 'the value' : path.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('');

/** One step from `value`, or undefined when `value` has no such member (or is not of the kind the step needs). */
function stepInto(value: Json | undefined, step: Step): Json | undefined {
  if (typeof step === 'number') return Array.isArray(value) ? value[step] : undefined;
  return isJsonObject(value) && Object.hasOwn(value, step) ? value[step] : undefined;
}

/**
 * The value at `path`, as `value.a.b[0]` reads it: undefined when the last step finds
 * nothing; an error naming the path when a step before it does not reach an object (for a
 * name) or an array (for an index).
 */
export function at(value: Json | undefined, ...path: readonly Step[]): Json | undefined {
  let current = value;
  for (const [index, step] of path.entries()) {
    const container = typeof step === 'number' ? Array.isArray(current) : isJsonObject(current);
    if (!container)
      throw new Error(
        `${describePath(path.slice(0, index))} is not ${typeof step === 'number' ? 'an array' : 'an object'}: ${JSON.stringify(current)}`,
      );
    current = stepInto(current, step);
  }
  return current;
}

/** The value at `path`, as `value?.a?.b?.[0]` reads it: undefined as soon as a step finds nothing. */
export function maybeAt(value: Json | undefined, ...path: readonly Step[]): Json | undefined {
  return path.reduce<Json | undefined>(stepInto, value);
}

/** The object at `path` (see at); an error when it is anything else. */
export function objectAt(value: Json | undefined, ...path: readonly Step[]): JsonObject {
  const found = at(value, ...path);
  if (!isJsonObject(found)) throw new Error(`${describePath(path)} is not an object: ${JSON.stringify(found)}`);
  return found;
}

/** The array at `path` (see at); an error when it is anything else. */
export function arrayAt(value: Json | undefined, ...path: readonly Step[]): Json[] {
  const found = at(value, ...path);
  if (!Array.isArray(found)) throw new Error(`${describePath(path)} is not an array: ${JSON.stringify(found)}`);
  return found;
}

/** The string at `path` (see at); an error when it is anything else. */
export function stringAt(value: Json | undefined, ...path: readonly Step[]): string {
  const found = at(value, ...path);
  if (typeof found !== 'string') throw new Error(`${describePath(path)} is not a string: ${JSON.stringify(found)}`);
  return found;
}

/** A value CloudFormation and IAM accept as one item or a list of them, as a list (none when absent). */
export function asList<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return isList(value) ? value : [value];
}

const isList = <T>(value: T | readonly T[]): value is readonly T[] => Array.isArray(value);
