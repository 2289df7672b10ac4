import * as z from 'zod';
import type { Principal } from '../auth/principal';
import { config } from '../config';
import { actorOf } from '../db/actor';
import { allOf, anyOf, is } from '../db/expressions';
import { StoredActor } from '../db/items';
import { keys } from '../db/keys';
import { RecordStore } from '../db/record-store';
import { AppError } from '../errors/app-error';
import { newJobId } from '../jobs/define-job';
import type { JobRef } from '../jobs/job-ref';
import { JobSupersededError, markFailed, pendingExecution, StoredExecution } from '../jobs/status';
import { executionView, isAbandoned } from '../jobs/view';
import type { InstallResponse } from '../model/app-install';
import { bundleStore, publishedVersion } from './bundles';
import { installAppJob, uninstallAppJob } from './install-job';
import { unlinkedProviders } from './links';
import { assertProvisionable } from './provisioning';

/**
 * Installs of apps (docs/apps.md): one record per tenant and bundle, keyed by bundle id, that
 * holds the install's status and the execution of its latest job (shared/apps/install-job.ts).
 * The routes move the status by conditional writes, so parallel installs claim it once
 * (80-8017) and an install meets a running uninstall (80-8042) instead of interleaving with it;
 * the jobs end it (INSTALLED, NOT_INSTALLED) or, failing, put back what their ref says
 * (FAILED, INSTALLED). No record, or one uninstalled, is NOT_INSTALLED.
 */
const StoredInstall = z.object({
  bundle_id: z.int(),
  status: z.enum(['INSTALLING', 'INSTALLED', 'UNINSTALLING', 'FAILED', 'NOT_INSTALLED']),
  enabled: z.boolean(),
  version_number: z.int(),
  sdk_client_id: z.string().nullable(),
  installed_by: StoredActor,
  installed_date: z.iso.datetime(),
  /** The latest install or uninstall job. */
  execution: StoredExecution,
});
export type StoredInstall = z.infer<typeof StoredInstall>;

const installs = new RecordStore({
  kind: 'APP_INSTALL',
  schema: StoredInstall,
  idOf: (install) => String(install.bundle_id),
});

/** The statuses a new install may claim the record from. */
const CLAIMABLE = ['NOT_INSTALLED', 'FAILED'] as const;

/** The install as the API answers it: NOT_INSTALLED with nulls when none is stored or it was uninstalled. */
export function installResponse(bundleId: number, install: StoredInstall | undefined): InstallResponse {
  const execution = install ? executionView(install.execution, Date.now(), config.jobInactivitySeconds) : null;
  if (!install || install.status === 'NOT_INSTALLED')
    return {
      bundle_id: bundleId,
      status: 'NOT_INSTALLED',
      enabled: false,
      version_number: null,
      sdk_client_id: null,
      installed_by: null,
      installed_date: null,
      execution,
    };
  return { ...install, execution };
}

/**
 * Where the install job of the record writes its status. Its failure, however it is recorded,
 * puts back the status the job started from: FAILED for an install (nothing was made),
 * INSTALLED for an uninstall (the app keeps its SDK user).
 */
function installJobRef(tenantId: string, bundleId: number, jobId: string, uninstalling: boolean): JobRef {
  return {
    tenant_id: tenantId,
    job_id: jobId,
    kind: (uninstalling ? uninstallAppJob : installAppJob).name,
    subject: keys.record(tenantId, 'APP_INSTALL', String(bundleId)),
    attribute: 'execution',
    failureFields: uninstalling ? { status: 'INSTALLED' } : { status: 'FAILED', sdk_client_id: null },
  };
}

/**
 * The install as stored; a job whose worker went silent is failed first (10-1047), which puts
 * its status back, so a dead job never holds the install.
 */
async function currentInstall(tenantId: string, bundleId: number): Promise<StoredInstall | undefined> {
  const install = await installs.find(tenantId, String(bundleId));
  if (!install || !isAbandoned(install.execution, Date.now(), config.jobInactivitySeconds)) return install;
  const { error } = executionView(install.execution, Date.now(), config.jobInactivitySeconds);
  const ref = installJobRef(tenantId, bundleId, install.execution.job_id, install.status === 'UNINSTALLING');
  if (error) await markFailed(ref, error);
  return installs.find(tenantId, String(bundleId));
}

/** The install of the bundle (80-8003 for a bundle the tenant does not have). */
export async function findInstall(tenantId: string, bundleId: number): Promise<StoredInstall | undefined> {
  await bundleStore.get(tenantId, bundleId);
  return currentInstall(tenantId, bundleId);
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

/** A claimed install and the ref its job writes through. */
export interface StartedInstallJob {
  readonly install: StoredInstall;
  readonly ref: JobRef;
}

/**
 * Claims the install of the bundle's published version for the tenant (INSTALLING, its job
 * PENDING), after the checks that need no provisioning: the bundle (80-8003), a published
 * version (80-8016), a link for every required provider (80-8015) and roles the installer may
 * grant (30-7001, 30-7002, 10-403). The caller starts the job with the ref.
 */
export async function beginInstall(installer: Principal, bundleId: number): Promise<StartedInstallJob> {
  const { tenantId } = installer;
  const bundle = await bundleStore.get(tenantId, bundleId);
  const version = publishedVersion(bundle);
  const missing = await unlinkedProviders(tenantId, version.manifest.required_providers);
  if (missing.length > 0) throw new AppError('80-8015', { params: [missing.join(', ')] });
  await assertProvisionable(installer, version.manifest.roles);
  await currentInstall(tenantId, bundleId);

  const now = new Date().toISOString();
  const jobId = newJobId(installAppJob);
  const claimed: StoredInstall = {
    bundle_id: bundleId,
    status: 'INSTALLING',
    enabled: true,
    version_number: version.version_number,
    sdk_client_id: null,
    installed_by: actorOf(installer),
    installed_date: now,
    execution: pendingExecution(jobId, now),
  };
  if (!(await installs.putIf(tenantId, claimed, anyOf(is.absent('pk'), is.oneOf('status', CLAIMABLE)))))
    throw claimRefusal(bundleId, await installs.find(tenantId, String(bundleId)));
  return { install: claimed, ref: installJobRef(tenantId, bundleId, jobId, false) };
}

/**
 * Marks an INSTALLED app UNINSTALLING with its job PENDING: 80-8042 while an uninstall runs,
 * 80-8014 when it is not INSTALLED. The caller starts the job with the ref.
 */
export async function beginUninstall(tenantId: string, bundleId: number): Promise<StartedInstallJob> {
  const current = await findInstall(tenantId, bundleId);
  if (current?.status === 'UNINSTALLING') throw new AppError('80-8042', { params: [bundleId] });
  if (current?.status !== 'INSTALLED') throw new AppError('80-8014', { params: [bundleId] });
  const jobId = newJobId(uninstallAppJob);
  const uninstalling: StoredInstall = {
    ...current,
    status: 'UNINSTALLING',
    execution: pendingExecution(jobId, new Date().toISOString()),
  };
  const unchanged = allOf(is.equal('status', 'INSTALLED'), is.equal('execution.job_id', current.execution.job_id));
  if (!(await installs.putIf(tenantId, uninstalling, unchanged)))
    throw claimRefusal(bundleId, await installs.find(tenantId, String(bundleId)));
  return { install: uninstalling, ref: installJobRef(tenantId, bundleId, jobId, true) };
}

/** The install a job of `job`'s works on; JobSupersededError when a newer job has claimed it since. */
export async function installOfJob(job: JobRef, bundleId: number): Promise<StoredInstall> {
  const install = await installs.find(job.tenant_id, String(bundleId));
  if (install?.execution.job_id !== job.job_id) throw new JobSupersededError(job);
  return install;
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
