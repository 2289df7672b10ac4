import * as z from 'zod';
import {
  AuditFields,
  Description,
  EchoedAuditFields,
  EntityId,
  IdParameter,
  LockVersion,
  Name,
  listEnvelope,
} from './common';

/**
 * App bundles, their versions and the manifest a version carries (docs/apps.md): the single
 * source of truth for requests, responses and the stored form.
 */

/** Most versions a bundle keeps: its versions live on its item, which must stay well under DynamoDB's 400 KB. */
export const MAX_BUNDLE_VERSIONS = 25;
/** Most files a version holds; the request body limit (MAX_BODY_BYTES) bounds their size. */
export const MAX_VERSION_FILES = 50;

/**
 * A file of a version: a plain name, no folders, so that no name climbs out of the version's
 * prefix in the data bucket or reads as a path of the asset route.
 */
export const AssetName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, {
    error:
      'must be a file name of 1 to 128 letters, digits, dots, underscores or hyphens, starting with a letter or digit',
  })
  .describe('A file name (no folders)');

/** The name of a provider an app requires; the id of the tenant's link for it. */
export const ProviderName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,63}$/, { error: 'must be 1 to 64 lowercase letters, digits, underscores or hyphens' })
  .describe('Provider name: lowercase letters, digits, underscores and hyphens, starting with a letter');

/**
 * The operations a run action may ask the service to carry out with the app's credentials, and
 * `call_backend`: a POST to the app's own backend (the manifest's `backend`), through the
 * outbound guard.
 */
export const SERVICE_ACTION_KINDS = [
  'list_data_tables',
  'preview_data_table',
  'run_dataset_node',
  'start_export',
] as const;
export const RUN_ACTION_KINDS = [...SERVICE_ACTION_KINDS, 'call_backend'] as const;
export type RunActionKind = (typeof RUN_ACTION_KINDS)[number];

const ActionName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,63}$/, { error: 'must be 1 to 64 lowercase letters, digits or hyphens' });

/** The path of a backend call, relative to the backend's base URL: no host, no dot segments, no query. */
const BackendPath = z
  .string()
  .regex(/^(?:[A-Za-z0-9_-]+)(?:\/[A-Za-z0-9_-]+){0,7}$/, {
    error: 'must be a relative path of up to 8 segments of letters, digits, underscores or hyphens',
  })
  .describe('Where the call goes, relative to backend.base_url');

export const RunActionDeclaration = z.discriminatedUnion('kind', [
  z.strictObject({ name: ActionName, kind: z.enum(SERVICE_ACTION_KINDS) }),
  z.strictObject({ name: ActionName, kind: z.literal('call_backend'), path: BackendPath }),
]);
export type RunActionDeclaration = z.infer<typeof RunActionDeclaration>;

/** An app backend hosted elsewhere (docs/apps.md): where its `call_backend` actions go. */
export const AppBackend = z.strictObject({
  base_url: z
    .url({ protocol: /^https?$/, error: 'must be an absolute https:// URL' })
    .max(2048)
    .describe('https (plain http only to a destination the outbound allow-list names); checked at publish'),
});

/** manifest.json of a version, checked when the version is published (80-8037). */
export const AppManifest = z
  .strictObject({
    manifest_version: z.literal(1),
    name: Name,
    version: z.string().trim().min(1).max(64),
    description: z.string().max(4000).optional(),
    entry: AssetName.describe('The page a session opens; one of the version’s files'),
    roles: z.array(z.string().min(1).max(255)).min(1).max(10).describe('Roles of the tenant the app’s SDK user gets'),
    required_providers: z.array(ProviderName).max(10).default([]),
    backend: AppBackend.optional().describe('The app’s backend hosted elsewhere, for its call_backend actions'),
    run_actions: z
      .array(RunActionDeclaration)
      .max(20)
      .default([])
      .refine((actions) => new Set(actions.map((action) => action.name)).size === actions.length, {
        error: 'must not repeat an action name',
      }),
  })
  .refine((manifest) => manifest.backend || manifest.run_actions.every((action) => action.kind !== 'call_backend'), {
    error: 'call_backend actions need a backend',
    path: ['backend'],
  })
  .meta({ id: 'AppManifest' });
export type AppManifest = z.infer<typeof AppManifest>;

export const BundleIdParams = z.strictObject({ bundle_id: IdParameter });
export const BundleVersionParams = z.strictObject({
  bundle_id: IdParameter,
  version_number: IdParameter.describe('Version number'),
});

export const BundleCreateRequest = z
  .strictObject({ name: Name, description: Description })
  .meta({ id: 'AppBundleCreateRequest' });

export const BundleUpdateRequest = z
  .strictObject({
    bundle_id: EntityId.optional().describe('When sent, the path’s bundle id (80-8012 otherwise)'),
    name: Name,
    description: Description,
    lock_version: LockVersion,
    ...EchoedAuditFields,
  })
  .meta({ id: 'AppBundleUpdateRequest' });

const ContentType = z
  .string()
  .regex(/^[a-z]+\/[a-z0-9.+-]+(?:; *charset=[a-z0-9-]+)?$/i, { error: 'must be a media type, e.g. text/html' })
  .max(100);

export const BundleFileUpload = z.strictObject({
  path: AssetName,
  content_type: ContentType,
  content_base64: z.base64().describe('The file’s bytes, base64'),
});

export const BundleVersionUpload = z
  .strictObject({
    files: z
      .array(BundleFileUpload)
      .min(1)
      .max(MAX_VERSION_FILES)
      .refine((files) => new Set(files.map((file) => file.path)).size === files.length, {
        error: 'must not repeat a path',
      }),
  })
  .meta({ id: 'AppBundleVersionUpload' });

export const VERSION_STATUSES = ['UPLOADED', 'PUBLISHED'] as const;

export const BundleFile = z.object({ path: AssetName, content_type: ContentType, size: z.int().min(0) });

export const BundleVersion = z
  .object({
    version_number: EntityId,
    status: z.enum(VERSION_STATUSES),
    files: z.array(BundleFile),
    manifest: AppManifest.nullable().describe('Once published'),
    uploaded_date: z.iso.datetime(),
    published_date: z.iso.datetime().nullable(),
  })
  .meta({ id: 'AppBundleVersion' });
export type BundleVersion = z.infer<typeof BundleVersion>;

export const BundleResponse = z
  .object({
    id: EntityId,
    lock_version: LockVersion,
    name: z.string(),
    description: z.string().nullable(),
    published_version: z.int().nullable().describe('The version installs and sessions use'),
    versions: z.array(BundleVersion),
    ...AuditFields,
  })
  .meta({ id: 'AppBundle' });
export type BundleResponse = z.infer<typeof BundleResponse>;

export const BundleList = listEnvelope(BundleResponse, 'AppBundleList');
