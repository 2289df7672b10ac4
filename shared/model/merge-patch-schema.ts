import * as z from 'zod';

/** Request schemas the OpenAPI document shows as another schema; see documented(). */
const SHOWN_AS = new WeakMap<z.ZodType, z.ZodType>();

/**
 * `schema`, shown in the OpenAPI document as `shown`. A merge patch is validated in two steps
 * (its required members, then the merged document, against what is stored); the document
 * shows the patch itself, derived from the same document schema, so a client sees every
 * member's type.
 */
export function documented<T extends z.ZodType>(schema: T, shown: z.ZodType): T {
  SHOWN_AS.set(schema, shown);
  return schema;
}

/** What the OpenAPI document shows for `schema`. */
export function documentedSchemaOf(schema: z.ZodType): z.ZodType {
  return SHOWN_AS.get(schema) ?? schema;
}

/**
 * The RFC 7396 merge patch of `document` (a resource's full update, as the merge validates
 * it): every member optional; null allowed where the document's member is optional (null
 * removes it) and for members the document does not have (removing what is absent changes
 * nothing); objects, and unions of objects, patched member by member, as the merge does;
 * other values (text, numbers, arrays) replace whole. Members named in `required` stay
 * required and cannot be null.
 */
export function mergePatchOf(document: z.ZodType, required: readonly string[] = []): z.ZodType {
  if (document instanceof z.ZodUnion) {
    const options = (document.options as readonly z.ZodType[]).map((option) => mergePatchOf(option, required));
    const [first, second, ...rest] = options;
    return second === undefined ? first! : z.union([first!, second, ...rest]);
  }
  if (document instanceof z.ZodObject) {
    const members = Object.entries(document.shape as Record<string, z.ZodType>).map(
      ([name, member]) => [name, required.includes(name) ? member : patchMember(member)] as const,
    );
    return z.object(Object.fromEntries(members)).catchall(z.null());
  }
  return document;
}

function patchMember(member: z.ZodType): z.ZodType {
  const removable = member.safeParse(undefined).success;
  let value = member;
  while (value instanceof z.ZodOptional || value instanceof z.ZodDefault) value = value.unwrap() as z.ZodType;
  const patched = patchValue(value);
  return removable && !patched.safeParse(null).success ? patched.nullable().optional() : patched.optional();
}

function patchValue(value: z.ZodType): z.ZodType {
  if (value instanceof z.ZodNullable) return patchValue(value.unwrap() as z.ZodType).nullable();
  return mergePatchOf(value);
}
