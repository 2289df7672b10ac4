import * as z from 'zod';
import { EntityId, IdParameter, LockVersion, Name, listEnvelope } from './common';
import type { ConnectionType } from './connection';
import { entityKindSchemas } from './entity-kind';
import { documented, mergePatchOf } from './merge-patch-schema';
import { storableKey } from './object-key';

/**
 * Export targets: a connection that may be written to, plus where the data goes (docs/targets.md).
 * One table, the kinds' own fields, is the single source of truth for requests, responses and
 * the stored form.
 */

/** Target kinds: where in the connection's system the data goes. */
export const TARGET_TYPES = ['bucket', 'table', 'pricing'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

/** The connection types each kind writes through (30-5003 names them). */
export const TARGET_CONNECTION_TYPES: Readonly<Record<TargetType, readonly ConnectionType[]>> = {
  bucket: ['object_store', 'cloud_store'],
  table: ['warehouse', 'analytics_db'],
  pricing: ['pricing_dim', 'pricing_sdk'],
};

/**
 * Destination text: not trimmed (a leading space in a table name is 30-5007, not silently
 * dropped), no control characters; the kind's own rules (30-5004..30-5009) are checked
 * against the connection in shared/targets/destination.ts.
 */
const destination = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\u0000-\u001f\u007f]*$/, { error: 'must not contain control characters' });

const PARAMETERS =
  'may hold the dynamic parameters {dataset_name}, {version}, {date}, {time} and {export_id} (docs/targets.md)';

/** What each kind adds to the common fields; every field required. */
const KIND_FIELDS = {
  bucket: {
    path: storableKey(destination(2048), { bucketFirst: true }).describe(
      `Folder the files are written to: "<bucket>" or "<bucket>/<folder>/..."; inside the connection's path restriction; folders ${PARAMETERS}`,
    ),
  },
  table: {
    // Bounded well above every limit, so that a long name is 30-5004 naming the connection's limit.
    table_name: destination(4096).describe(
      `Table written in the connection's database and schema (warehouse) or dataset (analytics_db): letters, digits and underscores, not starting with an underscore or space, at most 255 (warehouse) or 1024 (analytics_db) characters; ${PARAMETERS}`,
    ),
  },
  pricing: {
    project_path: destination(1024).describe(
      `Pricing project, starting with a backslash and not ending with one, e.g. \\Pricing\\Europe; ${PARAMETERS}`,
    ),
    table_path: destination(1024).describe(
      `Table inside the project, not starting with a backslash and ending with one, e.g. Tables\\Prices\\; ${PARAMETERS}`,
    ),
  },
} satisfies Record<TargetType, z.ZodRawShape>;

/** Responses: the kind's fields as stored. */
const KIND_RESPONSE_FIELDS = {
  bucket: { path: z.string() },
  table: { table_name: z.string() },
  pricing: { project_path: z.string(), table_path: z.string() },
} satisfies Record<TargetType, z.ZodRawShape>;

/** A field only some kinds have. */
type KindField = { [T in TargetType]: keyof (typeof KIND_FIELDS)[T] }[TargetType];

/** The stored fields of each kind; the other kinds' fields are null. */
export const TARGET_KIND_FIELD_NAMES = Object.fromEntries(
  TARGET_TYPES.map((type) => [type, Object.keys(KIND_FIELDS[type])]),
) as unknown as Record<TargetType, readonly KindField[]>;

function targetKind<const T extends TargetType>(type: T, label: string) {
  return entityKindSchemas({
    entity: 'Target',
    label,
    type,
    requestType: z.literal(type),
    connectionId: EntityId.describe(
      `The connection written through: ${TARGET_CONNECTION_TYPES[type].join(' or ')}, with write permission`,
    ),
    responseName: Name,
    fields: KIND_FIELDS[type],
    responseFields: KIND_RESPONSE_FIELDS[type],
  });
}

const bucket = targetKind('bucket', 'Bucket');
const table = targetKind('table', 'Table');
const pricing = targetKind('pricing', 'Pricing');

export const TargetCreateRequest = z
  .discriminatedUnion('type', [bucket.create, table.create, pricing.create])
  .meta({ id: 'TargetCreateRequest' });
export const TargetUpdateRequest = z
  .discriminatedUnion('type', [bucket.update, table.update, pricing.update])
  .meta({ id: 'TargetUpdateRequest' });
export const TargetResponse = z
  .discriminatedUnion('type', [bucket.response, table.response, pricing.response])
  .meta({ id: 'Target' });
export const TargetList = listEnvelope(TargetResponse, 'TargetList');

/**
 * Merge (PATCH): an RFC 7396 merge patch of the update document. Only the fields sent change;
 * null removes an optional field (and, when the kind changes, the old kind's fields). The
 * merged document is then validated as a full update.
 */
export const TargetMergePatch = documented(
  z.looseObject({ id: EntityId, lock_version: LockVersion, type: z.enum(TARGET_TYPES) }),
  mergePatchOf(TargetUpdateRequest, ['id', 'lock_version', 'type']).meta({
    id: 'TargetMergePatch',
    description:
      'RFC 7396 merge patch of TargetUpdateRequest: id, lock_version and type are required, every other member optional; null removes an optional member',
  }),
);

export const TargetIdParams = z.strictObject({ target_id: IdParameter });

export type TargetCreateRequest = z.output<typeof TargetCreateRequest>;
export type TargetUpdateRequest = z.output<typeof TargetUpdateRequest>;
export type TargetResponse = z.input<typeof TargetResponse>;
