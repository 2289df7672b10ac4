import * as z from 'zod';
import { User } from '../db/actor';
import {
  MAX_FILTER_DEPTH,
  MAX_FILTER_TOKENS,
  MAX_SORT_KEYS,
  type ListFieldType,
  type ListFieldTypes,
} from './list-fields';

/**
 * Fields shared by most resources (spec 2.2). Bounds the specification leaves open are
 * decided here and listed in docs/decisions.md.
 */
export const EntityId = z.int().min(1).max(Number.MAX_SAFE_INTEGER);
export const LockVersion = z
  .int()
  .min(0)
  .max(Number.MAX_SAFE_INTEGER)
  .describe('Optimistic-lock counter; send the current value');

/**
 * How integers sent as text describe themselves in the OpenAPI document: as the integer they
 * stand for, with its bounds (`type: integer`), since a client sends a number there; the
 * text is its decimal numeral (docs/decisions.md, "The contract").
 */
export const integerTexts = z.registry<{ readonly minimum: number; readonly maximum: number }>();

/**
 * An integer sent as text (path segment, query parameter): a decimal numeral (digits, an
 * optional minus; leading zeros are harmless), then range-checked. Any length is read: a
 * numeral too long for a safe integer parses beyond the bound (or to Infinity) and is refused.
 */
export function integerText(rule: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .regex(/^-?\d+$/, { error: rule })
    .transform(Number)
    .pipe(z.int().min(min).max(max))
    .register(integerTexts, { minimum: min, maximum: max });
}

/** A path segment that must be a positive integer id. */
export const IdParameter = integerText('must be a positive integer', 1).describe('Positive integer id');

export const Name = z.string().trim().min(1).max(255);
export const Description = z.string().max(4000).nullable().optional();
export const Tags = z
  .array(z.string().trim().min(1).max(128))
  .max(50)
  .refine((tags) => new Set(tags).size === tags.length, { error: 'must not repeat a tag' })
  .meta({ uniqueItems: true })
  .nullable()
  .optional()
  .describe('Unique tags');

/** Who did something: stored and shown alike, so its schema lives beside the store that stamps it. */
export { User };

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

const queryInteger = (fallback: number, min: number, max: number) =>
  integerText('must be an integer', min, max).optional().default(fallback);

const FIELD_TYPE_NAMES: Readonly<Record<ListFieldType, string>> = {
  string: 'text',
  integer: 'integer',
  boolean: 'boolean',
  datetime: 'date-time',
  'string-list': 'list of text',
};

/**
 * The query of a list over `fields` (docs/list-query.md). The sort and filter grammars are
 * checked where the list is read (shared/http/list-query.ts); here they only describe
 * themselves: sort with a pattern naming the sortable fields (the whole grammar is regular),
 * filter as the `list-filter` format, its grammar in the description and its fields in
 * `x-list-fields`, for clients that check it.
 */
const PAGING = {
  offset: queryInteger(0, 0, Number.MAX_SAFE_INTEGER).describe('Records to skip'),
  limit: queryInteger(1000, 1, 1000).describe('Records to return, at most 1000'),
};

/**
 * The query of a list whose fields are not declared in shared/model/list-fields.ts: its sort
 * and filter describe only their length. Prefer listQuery(fields), which describes them whole.
 */
export const ListQuery = z.strictObject({
  ...PAGING,
  sort: z.string().max(200).optional().describe('Sort keys, e.g. `name,-created_date` (docs/list-query.md)'),
  filter: z
    .string()
    .max(2000)
    .optional()
    .describe("Filter expression, e.g. `type eq 'object_store' and name co 'sales'` (docs/list-query.md)"),
});

export function listQuery(fields: ListFieldTypes) {
  const names = Object.keys(fields);
  const sortable = names.filter((name) => fields[name] !== 'string-list');
  const key = `[+-]?(?:${sortable.join('|')})`;
  const fieldList = names.map((name) => `${name} (${FIELD_TYPE_NAMES[fields[name]!]})`).join(', ');
  return z.strictObject({
    ...PAGING,
    sort: z
      .string()
      .max(200)
      .optional()
      .meta({
        format: 'list-sort',
        pattern: `^(?:\\s*|\\s*${key}\\s*(?:,\\s*${key}\\s*){0,${MAX_SORT_KEYS - 1}})$`,
        description: `Up to ${MAX_SORT_KEYS} sort keys separated by commas, each a field with \`-\` before it for descending order: ${sortable.join(', ')}; e.g. \`${sortable[1] ?? sortable[0]},-${sortable[0]}\`. Blank sorts by id (docs/list-query.md)`,
      }),
    filter: z
      .string()
      .max(2000)
      .optional()
      .meta({
        format: 'list-filter',
        'x-list-fields': fields,
        description: [
          "Filter expression (format list-filter, docs/list-query.md), e.g. `name co 'sales' and not (id lt 3)`. Blank filters nothing.",
          "Grammar: filter := or; or := and ('or' and)*; and := unary ('and' unary)*; unary := 'not' unary | '(' or ')' | field op value; op := eq | ne | gt | ge | lt | le | co | sw | ew; value := 'text' (two quotes for one) | number | true | false | null. Keywords and operators ignore case.",
          'Operators by field type: text all; integer and date-time eq ne gt ge lt le; boolean eq ne; list of text co (has that element). A value fits its field: quoted text for text and list fields, a number for integers, true or false for booleans, an RFC 3339 date-time in quotes (with its offset) for date-times; null goes with eq and ne only.',
          `At most ${MAX_FILTER_TOKENS} tokens and ${MAX_FILTER_DEPTH} levels of parentheses (each "not" before them counts). Fields: ${fieldList}.`,
        ].join(' '),
      }),
  });
}

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
