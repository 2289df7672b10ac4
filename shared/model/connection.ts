import * as z from 'zod';
import {
  AuditFields,
  Description,
  EchoedAuditFields,
  EntityId,
  IdParameter,
  LockVersion,
  Name,
  Tags,
  listEnvelope,
} from './common';
import { documented, mergePatchOf } from './merge-patch-schema';
import { storableKey } from './object-key';
import { withoutControls } from './text-rules';
import { AUTH_VARIANTS, optionalText, type AuthType, type AuthVariant } from './connection-auth';

export { AUTH_TYPES, AUTH_VARIANTS, type AuthType } from './connection-auth';

/**
 * Connections (spec 2.3, 2.4). Two tables are the single source of truth: the auth variants
 * (their fields, and which one is the write-only secret) and the connection types (the auth
 * variants each allows and its type-specific fields). Every request and response schema is
 * derived from them.
 */
export const CONNECTION_TYPES = [
  'object_store',
  'warehouse',
  'delta_sharing',
  'pricing_dim',
  'cloud_store',
  'analytics_db',
  'pricing_sdk',
] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

const PathRestriction = storableKey(withoutControls(z.string().trim().min(1).max(1024)), { bucketFirst: true })
  .nullable()
  .optional()
  .describe('Limits access to paths inside the bucket: "<bucket>" or "<bucket>/<folder>/"');
const DatasetId = optionalText(1024).describe('Default dataset for table listing and connection testing');
const TypeMapping = z
  .record(z.string(), z.string())
  .nullable()
  .optional()
  .describe('Source column name → target type name');

/** Type-specific fields a request may carry, by type. */
const SETTINGS = {
  object_store: { path_restriction: PathRestriction },
  cloud_store: { path_restriction: PathRestriction },
  warehouse: { database: optionalText(255), schema: optionalText(255), warehouse: optionalText(255) },
  analytics_db: { dataset_id: DatasetId },
  delta_sharing: {},
  pricing_dim: {},
  pricing_sdk: { service_key: optionalText(1024) },
} satisfies Record<ConnectionType, z.ZodRawShape>;

/** Settings that "test updated" may override for one test, by type. */
const TEST_OVERRIDES = {
  object_store: SETTINGS.object_store,
  cloud_store: SETTINGS.cloud_store,
  warehouse: SETTINGS.warehouse,
  analytics_db: SETTINGS.analytics_db,
  delta_sharing: {},
  pricing_dim: {},
  pricing_sdk: {},
} satisfies Record<ConnectionType, z.ZodRawShape>;

export const SETTING_NAMES = Object.fromEntries(
  CONNECTION_TYPES.map((type) => [type, Object.keys(SETTINGS[type])]),
) as unknown as Record<ConnectionType, readonly string[]>;

const PRICING_RESPONSE = { type_mapping: TypeMapping, type_mapping_name: optionalText(255) };

type Variant = AuthVariant<z.ZodObject, z.ZodObject, z.ZodObject>;

/** Wire label of a type: object_store → ObjectStore, for schema ids. */
const label = (type: string) => type.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());

/** Any auth variant, as TypeScript sees it: an object whose auth_type names the variant. */
export type AuthFields = { readonly auth_type: AuthType; readonly [field: string]: unknown };

function authUnion(variants: readonly Variant[], form: 'request' | 'update' | 'response'): z.ZodType<AuthFields> {
  const options = variants.map((option) => option[form]) as [z.ZodObject, ...z.ZodObject[]];
  return z.discriminatedUnion('auth_type', options) as unknown as z.ZodType<AuthFields>;
}

function connectionType<const T extends ConnectionType, S extends z.ZodRawShape, X extends z.ZodRawShape>(
  type: T,
  variants: readonly Variant[],
  settings: S,
  responseExtras: X,
  options: { authRequiredOnUpdate: boolean },
) {
  const name = label(type);
  const typeLiteral = z.literal(type);
  const common = { name: Name, description: Description, tags: Tags };
  const { authRequiredOnUpdate } = options;
  const updateDocument = (auth: z.ZodType) =>
    z.strictObject({
      id: EntityId,
      lock_version: LockVersion,
      type: typeLiteral,
      ...common,
      read: z.boolean().optional(),
      write: z.boolean().optional(),
      auth,
      ...settings,
      ...EchoedAuditFields,
      // Changed only through the type-mapping operation; accepted here when echoed back.
      ...(Object.keys(responseExtras).length > 0
        ? { type_mapping: z.unknown().optional(), type_mapping_name: z.unknown().optional() }
        : {}),
    });
  return {
    type,
    create: z
      .strictObject({
        type: typeLiteral,
        ...common,
        read: z.boolean().optional().describe('Default true'),
        write: z
          .boolean()
          .optional()
          .describe(type === 'pricing_dim' ? 'Default true: pricing DIM connections are targets' : 'Default false'),
        auth: authUnion(variants, 'request'),
        ...settings,
      })
      .meta({ id: `${name}ConnectionCreateRequest` }),
    update: updateDocument(
      authRequiredOnUpdate ? authUnion(variants, 'request') : authUnion(variants, 'update').optional(),
    ).meta({
      id: `${name}ConnectionUpdateRequest`,
    }),
    /** A merge patch applied to the stored connection: a full update in which auth may be absent. */
    merged: updateDocument(authUnion(variants, 'update').optional()),
    test: z
      .strictObject({
        type: typeLiteral,
        name: Name.optional(),
        description: Description,
        tags: Tags,
        read: z.boolean().optional(),
        write: z.boolean().optional(),
        auth: authUnion(variants, 'request'),
        ...settings,
      })
      .meta({ id: `${name}ConnectionTestRequest` }),
    testStored: z
      .strictObject({ type: typeLiteral, ...TEST_OVERRIDES[type] })
      .meta({ id: `${name}ConnectionTestStoredRequest` }),
    response: z
      .object({
        id: EntityId,
        lock_version: LockVersion,
        type: typeLiteral,
        name: Name.nullable(),
        description: Description,
        tags: Tags,
        read: z.boolean(),
        write: z.boolean(),
        auth: authUnion(variants, 'response'),
        ...settings,
        ...responseExtras,
        ...AuditFields,
      })
      .meta({ id: `${name}Connection` }),
    testResult: z
      .object({
        type: typeLiteral,
        read: z.boolean(),
        write: z.boolean(),
        auth: authUnion(variants, 'response'),
        ...settings,
        ...responseExtras,
      })
      .meta({ id: `${name}ConnectionTestResult` }),
  };
}

const V = AUTH_VARIANTS;
const TYPES = [
  connectionType('object_store', [V.secret_key], SETTINGS.object_store, {}, { authRequiredOnUpdate: false }),
  connectionType(
    'warehouse',
    [V.password, V.oauth_client_credentials],
    SETTINGS.warehouse,
    {},
    { authRequiredOnUpdate: false },
  ),
  connectionType(
    'delta_sharing',
    [V.delta_sharing_profile],
    SETTINGS.delta_sharing,
    {},
    { authRequiredOnUpdate: true },
  ),
  connectionType('pricing_dim', [V.oauth_client_credentials], SETTINGS.pricing_dim, PRICING_RESPONSE, {
    authRequiredOnUpdate: false,
  }),
  connectionType(
    'cloud_store',
    [V.service_account_key, V.workload_identity],
    SETTINGS.cloud_store,
    {},
    { authRequiredOnUpdate: false },
  ),
  connectionType(
    'analytics_db',
    [V.service_account_key, V.workload_identity],
    SETTINGS.analytics_db,
    {},
    { authRequiredOnUpdate: true },
  ),
  connectionType('pricing_sdk', [V.private_key_jwt], SETTINGS.pricing_sdk, PRICING_RESPONSE, {
    authRequiredOnUpdate: false,
  }),
] as const;

const [objectStore, warehouse, deltaSharing, pricingDim, cloudStore, analyticsDb, pricingSdk] = TYPES;

export const ConnectionCreateRequest = z
  .discriminatedUnion('type', [
    objectStore.create,
    warehouse.create,
    deltaSharing.create,
    pricingDim.create,
    cloudStore.create,
    analyticsDb.create,
    pricingSdk.create,
  ])
  .meta({ id: 'ConnectionCreateRequest' });
export const ConnectionUpdateRequest = z
  .discriminatedUnion('type', [
    objectStore.update,
    warehouse.update,
    deltaSharing.update,
    pricingDim.update,
    cloudStore.update,
    analyticsDb.update,
    pricingSdk.update,
  ])
  .meta({ id: 'ConnectionUpdateRequest' });
/** The Test request lists six types; a pricing SDK connection is tested once stored (spec 2.3). */
/** Internal: the document a merge patch produces, validated before it is applied. */
export const ConnectionMergedDocument = z.discriminatedUnion('type', [
  objectStore.merged,
  warehouse.merged,
  deltaSharing.merged,
  pricingDim.merged,
  cloudStore.merged,
  analyticsDb.merged,
  pricingSdk.merged,
]);
export const ConnectionTestRequest = z
  .discriminatedUnion('type', [
    objectStore.test,
    warehouse.test,
    deltaSharing.test,
    pricingDim.test,
    cloudStore.test,
    analyticsDb.test,
  ])
  .meta({ id: 'ConnectionTestRequest' });
export const ConnectionTestStoredRequest = z
  .discriminatedUnion('type', [
    objectStore.testStored,
    warehouse.testStored,
    deltaSharing.testStored,
    pricingDim.testStored,
    cloudStore.testStored,
    analyticsDb.testStored,
    pricingSdk.testStored,
  ])
  .meta({ id: 'ConnectionTestStoredRequest' });
export const ConnectionResponse = z
  .discriminatedUnion('type', [
    objectStore.response,
    warehouse.response,
    deltaSharing.response,
    pricingDim.response,
    cloudStore.response,
    analyticsDb.response,
    pricingSdk.response,
  ])
  .meta({ id: 'Connection' });
export const ConnectionTestResult = z
  .discriminatedUnion('type', [
    objectStore.testResult,
    warehouse.testResult,
    deltaSharing.testResult,
    pricingDim.testResult,
    cloudStore.testResult,
    analyticsDb.testResult,
  ])
  .meta({ id: 'ConnectionTestResult' });
export const ConnectionList = listEnvelope(ConnectionResponse, 'ConnectionList');

/**
 * Merge (PATCH): an RFC 7396 merge patch of the update document. Only the fields sent change;
 * null removes an optional field. The merged document is then validated as a full update.
 */
export const ConnectionMergePatch = documented(
  z.looseObject({ id: EntityId, lock_version: LockVersion, type: z.enum(CONNECTION_TYPES) }),
  mergePatchOf(ConnectionMergedDocument, ['id', 'lock_version', 'type']).meta({
    id: 'ConnectionMergePatch',
    description:
      'RFC 7396 merge patch of ConnectionUpdateRequest: id, lock_version and type are required, every other member optional; null removes an optional member; auth merges member by member (send auth_type and every required member to switch to another auth type)',
  }),
);

export const TypeMappingUpdateRequest = z
  .strictObject({
    id: EntityId,
    lock_version: LockVersion,
    type_mapping: z
      .string()
      .max(65_536)
      .describe('A JSON object, as a string, mapping source column names to target type names'),
    type_mapping_name: optionalText(255),
  })
  .meta({ id: 'TypeMappingUpdateRequest' });

export const ConnectionIdParams = z.strictObject({ connection_id: IdParameter });

export type ConnectionCreateRequest = z.output<typeof ConnectionCreateRequest>;
export type ConnectionUpdateRequest = z.output<typeof ConnectionUpdateRequest>;
export type ConnectionTestRequest = z.output<typeof ConnectionTestRequest>;
export type ConnectionTestStoredRequest = z.output<typeof ConnectionTestStoredRequest>;
export type ConnectionResponse = z.input<typeof ConnectionResponse>;
export type ConnectionTestResult = z.input<typeof ConnectionTestResult>;
