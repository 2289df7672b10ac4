import * as z from 'zod';
import { EntityId, IdParameter, LockVersion, Name, listEnvelope } from './common';
import { entityKindSchemas } from './entity-kind';
import { documented, mergePatchOf } from './merge-patch-schema';
import { storableKey } from './object-key';

/**
 * Data sources (spec 2.5). One table, the kinds' own fields, is the single source of truth:
 * every request and response schema, and the stored form, is derived from it.
 */

/**
 * Data source kinds on the wire (spec 2.5). The spec writes the delta-sharing value as
 * "delta sharing"; requests may spell it that way, responses say delta_sharing. The
 * analytics-database kind is not named by the spec: analytics_db, like its connection type.
 */
export const DATA_SOURCE_TYPES = ['bucket', 'rdbms', 'delta_sharing', 'analytics_db'] as const;
export type DataSourceType = (typeof DATA_SOURCE_TYPES)[number];

const text = (max: number) => z.string().trim().min(1).max(max);
const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();

const SourceQuery = text(65_536).describe('A single read-only SQL query (SELECT, WITH, VALUES or TABLE)');
const SourceWarehouse = optionalText(255).describe(
  'Warehouse to run the query on; must match the connection warehouse when both are set',
);

/** What each kind adds to the common fields, in requests; required unless marked optional. */
const KIND_FIELDS = {
  bucket: {
    path: storableKey(text(2048), { bucketFirst: true }).describe(
      '"<bucket>", "<bucket>/<folder>/" or "<bucket>/<folder>/<file>"; without a trailing slash the path names that object, or the folder of that name when there is no such object',
    ),
  },
  rdbms: { query: SourceQuery, warehouse: SourceWarehouse },
  delta_sharing: {
    share: text(255),
    schema: text(255),
    table: text(255),
    table_version: z
      .int()
      .min(0)
      .nullable()
      .optional()
      .describe('Time travel: imports read this version of the table; the latest when omitted'),
    table_timestamp: z.iso
      .datetime()
      .nullable()
      .optional()
      .describe(
        'Time travel: imports read the version current at this instant (ISO 8601, UTC); not with table_version',
      ),
  },
  analytics_db: {
    table_ref: text(1024).describe(
      '[projectId].[datasetId].[tableName]; backtick-quote identifiers that contain spaces, e.g. `my project`.sales.`daily totals`',
    ),
  },
} satisfies Record<DataSourceType, z.ZodRawShape>;

/** Responses: the kind's fields, nullable where the spec says so. */
const KIND_RESPONSE_FIELDS = {
  bucket: { path: z.string().nullable() },
  rdbms: { query: z.string(), warehouse: z.string().nullable().optional() },
  delta_sharing: {
    share: z.string().nullable(),
    schema: z.string().nullable(),
    table: z.string().nullable(),
    table_version: z.int().nullable(),
    table_timestamp: z.string().nullable(),
  },
  analytics_db: { table_ref: z.string() },
} satisfies Record<DataSourceType, z.ZodRawShape>;

/** A field that only some kinds have, such as path or query. */
type KindField = { [T in DataSourceType]: keyof (typeof KIND_FIELDS)[T] }[DataSourceType];

/** The stored fields of each kind; the other kinds' fields are null. */
export const KIND_FIELD_NAMES = Object.fromEntries(
  DATA_SOURCE_TYPES.map((type) => [type, Object.keys(KIND_FIELDS[type])]),
) as unknown as Record<DataSourceType, readonly KindField[]>;

/** The spec writes the delta-sharing value "delta sharing"; requests may, responses say delta_sharing. */
const requestType = <const T extends DataSourceType>(type: T) =>
  type === 'delta_sharing'
    ? z
        .literal(['delta_sharing', 'delta sharing'])
        .transform((): T => type)
        .describe('delta_sharing; "delta sharing", the spec\'s spelling, is accepted too')
    : z.literal(type);

function dataSourceKind<const T extends DataSourceType>(type: T, label: string) {
  return entityKindSchemas({
    entity: 'DataSource',
    label,
    type,
    requestType: requestType(type),
    connectionId: EntityId.describe('The connection the data is read through'),
    responseName: Name.nullable(),
    fields: KIND_FIELDS[type],
    responseFields: KIND_RESPONSE_FIELDS[type],
  });
}

const bucket = dataSourceKind('bucket', 'Bucket');
const rdbms = dataSourceKind('rdbms', 'Rdbms');
const deltaSharing = dataSourceKind('delta_sharing', 'DeltaSharing');
const analyticsDb = dataSourceKind('analytics_db', 'AnalyticsDb');

export const DataSourceCreateRequest = z
  .discriminatedUnion('type', [bucket.create, rdbms.create, deltaSharing.create, analyticsDb.create])
  .meta({ id: 'DataSourceCreateRequest' });
export const DataSourceUpdateRequest = z
  .discriminatedUnion('type', [bucket.update, rdbms.update, deltaSharing.update, analyticsDb.update])
  .meta({ id: 'DataSourceUpdateRequest' });
export const DataSourceResponse = z
  .discriminatedUnion('type', [bucket.response, rdbms.response, deltaSharing.response, analyticsDb.response])
  .meta({ id: 'DataSource' });
export const DataSourceList = listEnvelope(DataSourceResponse, 'DataSourceList');

/**
 * Merge (PATCH): an RFC 7396 merge patch of the update document. Only the fields sent change;
 * null removes an optional field. The merged document is then validated as a full update.
 */
export const DataSourceMergePatch = documented(
  z.looseObject({ id: EntityId, lock_version: LockVersion, type: z.enum([...DATA_SOURCE_TYPES, 'delta sharing']) }),
  mergePatchOf(DataSourceUpdateRequest, ['id', 'lock_version', 'type']).meta({
    id: 'DataSourceMergePatch',
    description:
      'RFC 7396 merge patch of DataSourceUpdateRequest: id, lock_version and type are required, every other member optional; null removes an optional member',
  }),
);

/** Test of an rdbms query through a stored warehouse connection (spec 2.5, "Test rdbms DataSource"). */
export const RdbmsTestQueryRequest = z
  .strictObject({ query: SourceQuery, warehouse: SourceWarehouse })
  .meta({ id: 'RdbmsTestQueryRequest' });
export const RdbmsTestQueryResult = z.object({ valid: z.literal(true) }).meta({
  id: 'RdbmsTestQueryResult',
  description: 'The warehouse compiled the query: it is valid for the connection',
});

export const DataSourceIdParams = z.strictObject({ data_source_id: IdParameter });

export type DataSourceCreateRequest = z.output<typeof DataSourceCreateRequest>;
export type DataSourceUpdateRequest = z.output<typeof DataSourceUpdateRequest>;
export type DataSourceResponse = z.input<typeof DataSourceResponse>;
