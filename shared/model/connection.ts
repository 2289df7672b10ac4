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
import { printableAscii, withoutControls } from './text-rules';

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

const text = (max: number) => z.string().trim().min(1).max(max);
const secret = (max: number) => z.string().min(1).max(max);
const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();

/**
 * An access key id: AWS documents 16–128 word characters; S3-compatible stores use shorter
 * ones (MinIO from 3, the local twin's s3rver "S3RVER") and lower case (Cloudflare R2, B2).
 */
const AccessKeyId = z
  .string()
  .trim()
  .min(3)
  .max(128)
  .regex(/^[A-Za-z0-9._-]*$/, 'must contain only letters A-Z and a-z, digits, ".", "_" and "-"');

interface AuthVariant<R extends z.ZodObject, U extends z.ZodObject, P extends z.ZodObject> {
  /** The one write-only field of the variant. */
  readonly secretField: string;
  /** Create and test: every required field, the secret included. */
  readonly request: R;
  /** Full update: the secret may be omitted to keep the stored one. */
  readonly update: U;
  /** Responses never carry the secret. */
  readonly response: P;
}

const authVariant = <R extends z.ZodObject, U extends z.ZodObject, P extends z.ZodObject>(
  secretField: string,
  request: R,
  update: U,
  response: P,
): AuthVariant<R, U, P> => ({
  secretField,
  request,
  update,
  response,
});

const ServiceAccountKey = z.strictObject({
  auth_type: z.literal('service_account_key'),
  file_name: optionalText(255),
  service_account_key_json: z
    .string()
    .max(65_536)
    .describe('Service-account key file content (JSON); the project is taken from it'),
});
const WorkloadIdentity = z.strictObject({
  auth_type: z.literal('workload_identity'),
  client_id: printableAscii(text(1024)),
  client_secret: printableAscii(secret(4096)),
  token_url: text(2048),
  scope: printableAscii(text(1024)),
  service_account_email: z.email().max(320),
  audience: withoutControls(text(2048)),
  project_id: withoutControls(text(128)),
});
const SecretKey = z.strictObject({
  auth_type: z.literal('secret_key'),
  access_key_id: AccessKeyId,
  secret_access_key: printableAscii(secret(1024)),
  endpoint: text(2048).describe('HTTPS URL of an S3-compatible service'),
});
const Password = z.strictObject({
  auth_type: z.literal('password'),
  username: withoutControls(text(255)),
  password: withoutControls(secret(1024)),
  host: text(255),
});
const OAuthClientCredentials = z.strictObject({
  auth_type: z.literal('oauth_client_credentials'),
  token_url: text(2048),
  client_id: printableAscii(text(1024)),
  client_secret: printableAscii(secret(4096)),
  scope: printableAscii(text(1024)),
  host: text(2048),
});
const DeltaSharingProfile = z.strictObject({
  auth_type: z.literal('delta_sharing_profile'),
  delta_sharing_profile_name: optionalText(255),
  delta_sharing_profile_content: z.string().max(65_536).describe('Delta Sharing profile file content (JSON)'),
});
const PrivateKeyJwt = z.strictObject({
  auth_type: z.literal('private_key_jwt'),
  token_url: text(2048),
  client_id: printableAscii(text(1024)),
  private_key: z.string().max(16_384).describe('RSA private key, PEM'),
  kid: withoutControls(text(255)),
  scope: printableAscii(z.string().trim().max(1024)).nullable().optional(),
  host: text(2048),
});

const responseOf = <S extends z.ZodRawShape>(schema: z.ZodObject<S>) => z.object(schema.shape);

export const AUTH_VARIANTS = {
  service_account_key: authVariant(
    'service_account_key_json',
    ServiceAccountKey,
    ServiceAccountKey.partial({ service_account_key_json: true }),
    responseOf(ServiceAccountKey).omit({ service_account_key_json: true }),
  ),
  workload_identity: authVariant(
    'client_secret',
    WorkloadIdentity,
    WorkloadIdentity.partial({ client_secret: true }),
    responseOf(WorkloadIdentity).omit({ client_secret: true }),
  ),
  secret_key: authVariant(
    'secret_access_key',
    SecretKey,
    SecretKey.partial({ secret_access_key: true }),
    responseOf(SecretKey).omit({ secret_access_key: true }),
  ),
  password: authVariant(
    'password',
    Password,
    Password.partial({ password: true }),
    responseOf(Password).omit({ password: true }),
  ),
  oauth_client_credentials: authVariant(
    'client_secret',
    OAuthClientCredentials,
    OAuthClientCredentials.partial({ client_secret: true }),
    responseOf(OAuthClientCredentials).omit({ client_secret: true }),
  ),
  delta_sharing_profile: authVariant(
    'delta_sharing_profile_content',
    DeltaSharingProfile,
    DeltaSharingProfile.partial({ delta_sharing_profile_content: true }),
    responseOf(DeltaSharingProfile)
      .omit({ delta_sharing_profile_content: true })
      .extend({
        delta_sharing_profile_content_redacted: z
          .string()
          .describe('The profile with every credential replaced by a redaction mark'),
      }),
  ),
  private_key_jwt: authVariant(
    'private_key',
    PrivateKeyJwt,
    PrivateKeyJwt.partial({ private_key: true }),
    responseOf(PrivateKeyJwt).omit({ private_key: true }),
  ),
};
export type AuthType = keyof typeof AUTH_VARIANTS;
export const AUTH_TYPES = Object.keys(AUTH_VARIANTS) as AuthType[];

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
export type ConnectionUpdateRequest =
  z.output<typeof ConnectionUpdateRequest> | z.output<typeof ConnectionMergedDocument>;
export type ConnectionTestRequest = z.output<typeof ConnectionTestRequest>;
export type ConnectionTestStoredRequest = z.output<typeof ConnectionTestStoredRequest>;
export type ConnectionResponse = z.input<typeof ConnectionResponse>;
export type ConnectionTestResult = z.input<typeof ConnectionTestResult>;
