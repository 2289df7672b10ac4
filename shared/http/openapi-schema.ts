import type * as z from 'zod';
import { integerTexts } from '../model/common';

/**
 * Where zod's JSON Schema of a request schema would say less than the schema enforces, the
 * rendering is corrected here, so the OpenAPI document refuses what the service refuses:
 *
 * - integers sent as text (path and query) are shown as the integers they stand for, with
 *   their bounds (docs/decisions.md, "The contract");
 * - trimmed text: zod checks the length and patterns of the text without its surrounding
 *   white space, which JSON Schema cannot strip, so they become one pattern over the text as
 *   sent (white space, then text within the bounds that starts and ends with a visible
 *   character, then white space). `\s` in a pattern is the white space trim() removes.
 */
type JsonSchema = z.core.JSONSchema.BaseSchema;

/** The override for z.toJSONSchema. */
export function correctRendering(context: {
  readonly zodSchema: z.core.$ZodTypes;
  readonly jsonSchema: JsonSchema;
}): void {
  const { zodSchema, jsonSchema } = context;
  const bounds = integerTexts.get(zodSchema);
  if (bounds) {
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, { type: 'integer', minimum: bounds.minimum, maximum: bounds.maximum });
    return;
  }
  if (zodSchema._zod.def.type === 'string' && trims(zodSchema as z.core.$ZodString)) restateTrimmed(jsonSchema);
}

/** A probe only trim() turns into "x". */
const TRIM_PROBE = ' \t x \n';

function trims(schema: z.core.$ZodString): boolean {
  const checks = schema._zod.def.checks ?? [];
  const index = checks.findIndex(
    (check) =>
      check._zod.def.check === 'overwrite' &&
      (check._zod.def as z.core.$ZodCheckOverwriteDef<string>).tx(TRIM_PROBE) === 'x',
  );
  // Checks before the trim would see the text as sent; none of the models has one, and the
  // restatement below assumes so.
  if (index > 0)
    throw new Error('a string schema checks its text before trimming it: the OpenAPI rendering cannot restate that');
  return index === 0;
}

/**
 * The one character a full-match pattern `^X*$` allows at each position (X a character class
 * or a group); the character-set rules of the models have this form.
 */
function characterOf(pattern: string): string {
  const body = /^\^(.*)\*\$$/s.exec(pattern)?.[1];
  if (body !== undefined && (/^\[(?:\\.|[^\]\\])*\]$/s.test(body) || (body.startsWith('(?:') && closesAtEnd(body))))
    return body;
  throw new Error(`the pattern ${pattern} of a trimmed string cannot be restated around white space`);
}

/** The group opening `text` closes at its last character. */
function closesAtEnd(text: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (character === '\\') index += 1;
    else if (inClass) inClass = character !== ']';
    else if (character === '[') inClass = true;
    else if (character === '(') depth += 1;
    else if (character === ')' && (depth -= 1) === 0) return index === text.length - 1;
  }
  return false;
}

function restateTrimmed(jsonSchema: JsonSchema): void {
  const min = typeof jsonSchema.minLength === 'number' ? jsonSchema.minLength : 0;
  const max = typeof jsonSchema.maxLength === 'number' ? jsonSchema.maxLength : undefined;
  const patterns = [
    jsonSchema.pattern,
    ...(jsonSchema.allOf ?? []).map((part) => (typeof part === 'object' ? part.pattern : undefined)),
  ].filter((pattern): pattern is string => typeof pattern === 'string');
  if (patterns.length === 0 && min === 0 && max === undefined) return;
  // Several patterns all hold at each position: every one but the last as a lookahead.
  const characters = patterns.map(characterOf);
  const inner =
    characters.length === 0
      ? '[\\s\\S]'
      : characters.map((character, index) => (index < characters.length - 1 ? `(?=${character})` : character)).join('');
  const edge = `(?!\\s)${inner}`;
  const count = (low: number, upper: number | undefined) =>
    upper === undefined ? (low === 0 ? '*' : `{${low},}`) : `{${low},${upper}}`;
  const high = max === undefined ? undefined : max - 2;
  let core: string;
  if (max === 0) core = '';
  else if (max === 1) core = edge;
  else if (min >= 2) core = `${edge}${inner}${count(min - 2, high)}${edge}`;
  else core = `${edge}(?:${inner}${count(0, high)}${edge})?`;
  if (min === 0 && max !== 0) core = `(?:${core})?`;
  delete jsonSchema.minLength;
  delete jsonSchema.maxLength;
  delete jsonSchema.allOf;
  jsonSchema.pattern = `^\\s*${core}\\s*$`;
  const length = max === undefined ? `at least ${min}` : min === max ? `exactly ${min}` : `${min} to ${max}`;
  const rule = `Surrounding white space is removed first; what remains has ${length} characters${patterns.length > 0 ? ` matching ${patterns.join(' and ')}` : ''}`;
  jsonSchema.description = typeof jsonSchema.description === 'string' ? `${jsonSchema.description}. ${rule}` : rule;
}
