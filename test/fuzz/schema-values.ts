/**
 * Values that fit a JSON Schema (the dialect of the served OpenAPI 3.1 document), as
 * fast-check arbitraries: the "valid-shaped" start that the fuzzer then spoils one place at a
 * time. Only what zod emits is understood; anything else becomes an arbitrary JSON value,
 * which is still a fine fuzz input.
 */
import fc from 'fast-check';

export type JsonSchema = Readonly<Record<string, unknown>>;

/** Known-good values for fields of a given name (ids of entities that exist, endpoints, paths). */
export type FieldHints = Readonly<Record<string, readonly unknown[]>>;

export interface SchemaContext {
  /** Resolves `#/components/schemas/...` references. */
  readonly resolve: (ref: string) => JsonSchema;
  readonly hints: FieldHints;
}

/** Nesting beyond which a (recursive) schema yields null instead of going deeper. */
const MAX_DEPTH = 6;
/** Arrays stay short: size is not what this part of the fuzzer is after. */
const MAX_ITEMS = 3;

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

/**
 * Arbitraries of the strings a pattern matches, made once per pattern; null for a pattern
 * fast-check cannot generate from. Bodies are drawn through `chain`, which makes their
 * arbitraries again for every request: making one for a pattern with long repeats (`{0,1022}`)
 * tokenizes fast-check's sample strings char by char. Made once, the fuzz test alone takes about
 * 2 s of CPU less (of about 42, two paired runs). An arbitrary holds no state between draws, so
 * sharing one draws the same values.
 */
const patternArbitraries = new Map<string, fc.Arbitrary<string> | null>();

function patternArbitrary(pattern: string): fc.Arbitrary<string> | null {
  let arbitrary = patternArbitraries.get(pattern);
  if (arbitrary === undefined) {
    try {
      arbitrary = fc.stringMatching(new RegExp(pattern));
    } catch {
      // A pattern fast-check cannot generate from: plain strings instead.
      arbitrary = null;
    }
    patternArbitraries.set(pattern, arbitrary);
  }
  return arbitrary;
}

function stringValue(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'date-time')
    return fc
      .date({ noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2100-01-01') })
      .map((date) => date.toISOString());
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl();
  if (typeof schema.pattern === 'string') {
    const matching = patternArbitrary(schema.pattern);
    if (matching) return matching;
  }
  const minLength = numberOr(schema.minLength, 0);
  const maxLength = Math.min(numberOr(schema.maxLength, minLength + 20), minLength + 20);
  return fc.string({ minLength, maxLength });
}

function integerValue(schema: JsonSchema): fc.Arbitrary<number> {
  const min = Math.max(numberOr(schema.minimum, Number.MIN_SAFE_INTEGER), Number.MIN_SAFE_INTEGER);
  const max = Math.min(numberOr(schema.maximum, Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
  // Small values near the lower bound are the ones that name existing entities.
  return fc.oneof(fc.integer({ min, max: Math.min(max, min + 10) }), fc.integer({ min, max }));
}

function objectValue(schema: JsonSchema, context: SchemaContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    model[name] = fieldValue(name, property, context, depth + 1);
  return fc.record(model, { requiredKeys: required.filter((name) => name in model) });
}

function fieldValue(name: string, schema: unknown, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const generated = schemaValue(schema, context, depth);
  const hints = Object.hasOwn(context.hints, name) ? context.hints[name] : undefined;
  return hints && hints.length > 0
    ? fc.oneof({ arbitrary: fc.constantFrom(...hints), weight: 3 }, { arbitrary: generated, weight: 1 })
    : generated;
}

/** An arbitrary of values that (mostly) satisfy `schema`. */
export function schemaValue(schema: unknown, context: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  if (!isSchema(schema) || depth > MAX_DEPTH)
    return depth > MAX_DEPTH ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
  if (typeof schema.$ref === 'string') return schemaValue(context.resolve(schema.$ref), context, depth + 1);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0)
      return fc.oneof(...options.map((option) => schemaValue(option, context, depth)));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    // zod emits allOf for intersections of objects: merge their members.
    const parts = schema.allOf
      .map((part) => (isSchema(part) && typeof part.$ref === 'string' ? context.resolve(part.$ref) : part))
      .filter(isSchema);
    const merged = {
      type: 'object',
      properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})) as JsonSchema,
      required: parts.flatMap((part) => (Array.isArray(part.required) ? part.required : [])),
    };
    return objectValue(merged, context, depth);
  }
  const type = schema.type;
  if (Array.isArray(type))
    return fc.oneof(...type.map((single) => schemaValue({ ...schema, type: single }, context, depth)));
  switch (type) {
    case 'string':
      return stringValue(schema);
    case 'integer':
      return integerValue(schema);
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        min: numberOr(schema.minimum, -1e12),
        max: numberOr(schema.maximum, 1e12),
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = numberOr(schema.minItems, 0);
      const maxLength = Math.max(minLength, Math.min(numberOr(schema.maxItems, MAX_ITEMS), minLength + MAX_ITEMS));
      return fc.array(schemaValue(schema.items, context, depth + 1), { minLength, maxLength });
    }
    case 'object':
      return objectValue(schema, context, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
