import * as z from 'zod';
import type { Actor } from '../db/actor';
import { auditFieldsOf, type Entity } from '../db/entity-store';
import { AppError, notFound, validationError } from '../errors/app-error';
import { defineEntity, ENTITY_LIST_FIELDS, listField } from '../http/define-entity';
import {
  AppManifest,
  BundleFile,
  type BundleVersion,
  MAX_BUNDLE_VERSIONS,
  VERSION_STATUSES,
  type BundleResponse,
} from '../model/app-bundle';
import { readManifest, writeVersionFiles, type UploadedFile } from './bundle-files';

/**
 * App bundles (docs/apps.md): a named package of the tenant with its versions on its item.
 * Every change is EntityStore's conditional replace on lock_version, so two uploads or
 * publishes at once cannot lose one another (the loser retries on a fresh read).
 */
const StoredVersion = z.object({
  version_number: z.int().min(1),
  status: z.enum(VERSION_STATUSES),
  files: z.array(BundleFile),
  manifest: AppManifest.nullable(),
  uploaded_date: z.iso.datetime(),
  published_date: z.iso.datetime().nullable(),
}) satisfies z.ZodType<BundleVersion>;

const BundleData = z.object({
  name: z.string(),
  description: z.string().nullable(),
  published_version: z.int().nullable(),
  versions: z.array(StoredVersion),
});
export type BundleData = z.infer<typeof BundleData>;
export type Bundle = Entity<BundleData>;

/** App bundles, declared once. */
export const bundles = defineEntity({
  kind: 'APP_BUNDLE',
  label: 'bundle',
  data: BundleData,
  references: {},
  notFound: (id) => new AppError('80-8003', { params: [id] }),
  response: bundleResponse,
  list: {
    id: ENTITY_LIST_FIELDS.id,
    name: ENTITY_LIST_FIELDS.name,
    description: ENTITY_LIST_FIELDS.description,
    published_version: listField.integer((bundle: Bundle) => bundle.data.published_version),
    created_date: ENTITY_LIST_FIELDS.created_date,
    last_modified_date: ENTITY_LIST_FIELDS.last_modified_date,
  },
});

export const bundleStore = bundles.store;

/** Attempts of a version change against concurrent ones before it gives up with 10-1006. */
const CHANGE_ATTEMPTS = 5;

export function bundleResponse(bundle: Bundle): BundleResponse {
  return {
    id: bundle.id,
    lock_version: bundle.lock_version,
    name: bundle.data.name,
    description: bundle.data.description,
    published_version: bundle.data.published_version,
    versions: bundle.data.versions,
    ...auditFieldsOf(bundle),
  };
}

/** The bundle's version `versionNumber`, or 10-404 naming it. */
export function versionOf(bundle: Bundle, versionNumber: number): BundleVersion {
  const version = bundle.data.versions.find((candidate) => candidate.version_number === versionNumber);
  if (!version) throw notFound('bundle version', versionNumber);
  return version;
}

/** The version sessions open: the published one (80-8016 while there is none). */
export function publishedVersion(bundle: Bundle): BundleVersion & { manifest: AppManifest } {
  const version = bundle.data.versions.find((candidate) => candidate.version_number === bundle.data.published_version);
  if (!version?.manifest) throw new AppError('80-8016', { params: [bundle.id] });
  return { ...version, manifest: version.manifest };
}

/** Re-reads and changes the bundle until its conditional replace commits. */
async function changeBundle(
  tenantId: string,
  actor: Actor,
  bundleId: number,
  change: (bundle: Bundle) => Promise<BundleData> | BundleData,
): Promise<Bundle> {
  for (let attempt = 1; ; attempt += 1) {
    const current = await bundleStore.get(tenantId, bundleId);
    const next = await change(current);
    try {
      return await bundleStore.replace(tenantId, actor, current, current.lock_version, next);
    } catch (error) {
      if (!(error instanceof AppError && error.code === '10-1006') || attempt >= CHANGE_ATTEMPTS) throw error;
    }
  }
}

/**
 * Stores the files as version n+1, UPLOADED. The files go to the bucket first, under a
 * number no other upload can take once the replace commits; a lost race re-numbers them.
 */
export async function uploadVersion(
  tenantId: string,
  actor: Actor,
  bundleId: number,
  files: readonly UploadedFile[],
): Promise<BundleVersion> {
  let uploaded: BundleVersion | undefined;
  await changeBundle(tenantId, actor, bundleId, async (bundle) => {
    if (bundle.data.versions.length >= MAX_BUNDLE_VERSIONS)
      throw validationError({ bundle_id: `holds the most versions a bundle may have (${MAX_BUNDLE_VERSIONS})` });
    const versionNumber = Math.max(0, ...bundle.data.versions.map((version) => version.version_number)) + 1;
    uploaded = {
      version_number: versionNumber,
      status: 'UPLOADED',
      files: await writeVersionFiles(tenantId, bundleId, versionNumber, files),
      manifest: null,
      uploaded_date: new Date().toISOString(),
      published_date: null,
    };
    return { ...bundle.data, versions: [...bundle.data.versions, uploaded] };
  });
  return uploaded!;
}

/**
 * Publishes a version once its manifest.json, read back from the bucket, is valid (80-8037;
 * 80-8038 when the bucket fails) and names an entry the version has; it becomes the bundle's
 * published version.
 */
export async function publishVersion(
  tenantId: string,
  actor: Actor,
  bundleId: number,
  versionNumber: number,
): Promise<Bundle> {
  const version = versionOf(await bundleStore.get(tenantId, bundleId), versionNumber);
  const manifest = await readManifest(tenantId, bundleId, versionNumber);
  if (!version.files.some((file) => file.path === manifest.entry))
    throw new AppError('80-8037', {
      params: [bundleId, versionNumber],
      extraDetails: { entry: `names ${manifest.entry}, which the version does not have` },
    });
  const now = new Date().toISOString();
  return changeBundle(tenantId, actor, bundleId, (bundle) => ({
    ...bundle.data,
    published_version: versionNumber,
    versions: bundle.data.versions.map((candidate) =>
      candidate.version_number === versionNumber
        ? { ...candidate, status: 'PUBLISHED', manifest, published_date: candidate.published_date ?? now }
        : candidate,
    ),
  }));
}
