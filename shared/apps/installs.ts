import * as z from 'zod';
import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import { is } from '../db/expressions';
import { StoredActor } from '../db/items';
import { RecordStore } from '../db/record-store';
import { AppError } from '../errors/app-error';
import type { InstallResponse } from '../model/app-install';
import { bundleStore, publishedVersion } from './bundles';
import { unlinkedProviders } from './links';
import { deprovision, provision } from './provisioning';
import { deleteRunsOf } from './runs';
import { deleteSessionsOf } from './sessions';
import { deleteValuesOf } from './values';

/**
 * Installs of apps (docs/apps.md): one record per tenant and bundle, keyed by bundle id. Its
 * status moves only by conditional writes, so parallel installs claim it once (80-8017) and an
 * install meets a running uninstall (80-8042) instead of interleaving with it. No record is
 * NOT_INSTALLED.
 */
const StoredInstall = z.object({
  bundle_id: z.int(),
  status: z.enum(['INSTALLING', 'INSTALLED', 'UNINSTALLING']),
  enabled: z.boolean(),
  version_number: z.int(),
  sdk_client_id: z.string().nullable(),
  installed_by: StoredActor,
  installed_date: z.iso.datetime(),
});
export type StoredInstall = z.infer<typeof StoredInstall>;

const installs = new RecordStore({
  kind: 'APP_INSTALL',
  schema: StoredInstall,
  idOf: (install) => String(install.bundle_id),
});

export function installResponse(bundleId: number, install: StoredInstall | undefined): InstallResponse {
  if (!install)
    return {
      bundle_id: bundleId,
      status: 'NOT_INSTALLED',
      enabled: false,
      version_number: null,
      sdk_client_id: null,
      installed_by: null,
      installed_date: null,
    };
  return install;
}

/** The install of the bundle as stored (80-8003 for a bundle the tenant does not have). */
export async function findInstall(tenantId: string, bundleId: number): Promise<StoredInstall | undefined> {
  await bundleStore.get(tenantId, bundleId);
  return installs.find(tenantId, String(bundleId));
}

/** The INSTALLED app of the bundle: 80-8014 while it is not installed (or still installing). */
export async function installedApp(tenantId: string, bundleId: number): Promise<StoredInstall> {
  const install = await installs.find(tenantId, String(bundleId));
  if (install?.status !== 'INSTALLED') throw new AppError('80-8014', { params: [bundleId] });
  return install;
}

/** Why an install cannot claim the record `existing` holds. */
function claimRefusal(bundleId: number, existing: StoredInstall | undefined): AppError {
  return existing?.status === 'UNINSTALLING'
    ? new AppError('80-8042', { params: [bundleId] })
    : new AppError('80-8017', { params: [bundleId] });
}

/**
 * Installs the bundle's published version for the tenant: claims the install (INSTALLING),
 * provisions the app's SDK user with the manifest's roles, then marks it INSTALLED. A failed
 * provisioning removes the claim again (NOT_INSTALLED) before its error is answered.
 */
export async function install(installer: Principal, bundleId: number): Promise<StoredInstall> {
  const { tenantId } = installer;
  const bundle = await bundleStore.get(tenantId, bundleId);
  const version = publishedVersion(bundle);
  const missing = await unlinkedProviders(tenantId, version.manifest.required_providers);
  if (missing.length > 0) throw new AppError('80-8015', { params: [missing.join(', ')] });

  const claimed: StoredInstall = {
    bundle_id: bundleId,
    status: 'INSTALLING',
    enabled: true,
    version_number: version.version_number,
    sdk_client_id: null,
    installed_by: actorOf(installer),
    installed_date: new Date().toISOString(),
  };
  if (!(await installs.putIf(tenantId, claimed, is.absent('pk'))))
    throw claimRefusal(bundleId, await installs.find(tenantId, String(bundleId)));
  const releaseClaim = () => installs.deleteIf(tenantId, String(bundleId), is.equal('status', 'INSTALLING'));

  let sdkClientId: string;
  try {
    sdkClientId = await provision(installer, bundle.data.name, version.manifest.roles);
  } catch (error) {
    await releaseClaim();
    throw error;
  }
  const installed: StoredInstall = { ...claimed, status: 'INSTALLED', sdk_client_id: sdkClientId };
  await installs.putIf(tenantId, installed, is.equal('status', 'INSTALLING'));
  return installed;
}

/**
 * Uninstalls: marks the install UNINSTALLING, deletes the app's SDK user, its sessions, runs and
 * values, then the install. When the SDK user cannot be deleted, the install goes back to
 * INSTALLED and the answer is 80-8043.
 */
export async function uninstall(tenantId: string, bundleId: number): Promise<void> {
  const current = await findInstall(tenantId, bundleId);
  if (current?.status === 'UNINSTALLING') throw new AppError('80-8042', { params: [bundleId] });
  if (current?.status !== 'INSTALLED') throw new AppError('80-8014', { params: [bundleId] });
  const uninstalling: StoredInstall = { ...current, status: 'UNINSTALLING' };
  if (!(await installs.putIf(tenantId, uninstalling, is.equal('status', 'INSTALLED'))))
    throw new AppError('80-8042', { params: [bundleId] });
  try {
    if (current.sdk_client_id !== null) await deprovision(tenantId, current.sdk_client_id);
  } catch (error) {
    await installs.putIf(tenantId, current, is.equal('status', 'UNINSTALLING'));
    throw new AppError('80-8043', { cause: error });
  }
  await Promise.all([
    deleteSessionsOf(tenantId, bundleId),
    deleteRunsOf(tenantId, bundleId),
    deleteValuesOf(tenantId, bundleId),
  ]);
  await installs.deleteIf(tenantId, String(bundleId), is.equal('status', 'UNINSTALLING'));
}

/** Enables or disables an INSTALLED app (80-8014 otherwise); a disabled app runs nothing (80-8029). */
export async function setEnabled(tenantId: string, bundleId: number, enabled: boolean): Promise<StoredInstall> {
  await bundleStore.get(tenantId, bundleId);
  const current = await installedApp(tenantId, bundleId);
  const next = { ...current, enabled };
  if (!(await installs.putIf(tenantId, next, is.equal('status', 'INSTALLED'))))
    throw new AppError('80-8014', { params: [bundleId] });
  return next;
}
