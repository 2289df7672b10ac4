import * as z from 'zod';

/**
 * Fields shared by most resources (spec 2.2). Bounds the specification leaves open are
 * decided here and listed in docs/decisions.md.
 */
export const EntityId = z.int().min(1).max(Number.MAX_SAFE_INTEGER);
export const LockVersion = z.int().min(0).max(Number.MAX_SAFE_INTEGER).describe('Optimistic-lock counter; send the current value');

/** An integer sent as text (path segment, query parameter): digits only, then range-checked. */
export function integerText(rule: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .regex(/^-?\d{1,16}$/, { error: rule })
    .transform(Number)
    .pipe(z.int().min(min).max(max));
}

/** A path segment that must be a positive integer id. */
export const IdParameter = integerText('must be a positive integer', 1).describe('Positive integer id');

export const Name = z.string().trim().min(1).max(255);
export const Description = z.string().max(4000).nullable().optional();
export const Tags = z
  .array(z.string().trim().min(1).max(128))
  .max(50)
  .refine((tags) => new Set(tags).size === tags.length, { error: 'must not repeat a tag' })
  .nullable()
  .optional()
  .describe('Unique tags');

export const User = z
  .object({
    id: z.string().describe('Client id of the caller'),
    name: z.string().nullable().optional().describe('Description of the client, when it has one'),
  })
  .meta({ id: 'User' });

export const AuditFields = {
  created_by: User,
  created_date: z.iso.datetime(),
  last_modified_by: User,
  last_modified_date: z.iso.datetime(),
};

/** Read-only fields a client may send back unchanged in a full update; they are ignored. */
export const EchoedAuditFields = {
  created_by: z.unknown().optional(),
  created_date: z.unknown().optional(),
  last_modified_by: z.unknown().optional(),
  last_modified_date: z.unknown().optional(),
};

const queryInteger = (fallback: number, min: number, max: number) => integerText('must be an integer', min, max).optional().default(fallback);

export const ListQuery = z.strictObject({
  offset: queryInteger(0, 0, Number.MAX_SAFE_INTEGER).describe('Records to skip'),
  limit: queryInteger(1000, 1, 1000).describe('Records to return, at most 1000'),
  sort: z.string().max(200).optional().describe("Sort keys, e.g. `name,-created_date` (docs/list-query.md)"),
  filter: z
    .string()
    .max(2000)
    .optional()
    .describe("Filter expression, e.g. `type eq 'object_store' and name co 'sales'` (docs/list-query.md)"),
});

export function listEnvelope<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      offset: z.int().describe('Records skipped'),
      limit: z.int().describe('Number of records in this result set'),
      total: z.int().describe('Records available'),
      items: z.array(item),
    })
    .meta({ id });
}
