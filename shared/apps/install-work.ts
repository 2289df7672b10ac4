/**
 * The work of the install and uninstall jobs (shared/apps/install-job.ts), apart from the
 * install records (installs.ts) so that those need not know the sessions, runs and values an
 * uninstall deletes (which themselves read installs).
 */
import type * as z from 'zod';
import { AppError } from '../errors/app-error';
import type { JobRef } from '../jobs/job-ref';
import type { JobOutcome, JobStep } from '../jobs/job-step';
import type { installAppJob, uninstallAppJob } from './install-job';
import { bundleStore, versionOf } from './bundles';
import { installOfJob, type StoredInstall } from './installs';
import { deprovision, provision } from './provisioning';
import { deleteRunsOf } from './runs';
import { deleteSessionsOf } from './sessions';
import { deleteValuesOf } from './values';

/**
 * The install job's work: makes the SDK user with the manifest's roles of the version the
 * install claimed, and answers the fields that complete the install (INSTALLED). A failure
 * leaves nothing made (shared/apps/provisioning.ts) and the install FAILED (its ref).
 */
export async function provisionInstall(job: JobRef, bundleId: number): Promise<Partial<StoredInstall>> {
  const tenantId = job.tenant_id;
  const install = await installOfJob(job, bundleId);
  const bundle = await bundleStore.get(tenantId, bundleId);
  const manifest = versionOf(bundle, install.version_number).manifest;
  if (!manifest) throw new AppError('80-8016', { params: [bundleId] });
  const sdkClientId = await provision(tenantId, job.job_id, bundle.data.name, manifest.roles);
  return { status: 'INSTALLED', sdk_client_id: sdkClientId };
}

/**
 * The uninstall job's work: deletes the SDK user (80-8043 when the provider cannot, and the
 * install is INSTALLED again: its ref), then the app's sessions, runs and values, and answers
 * the fields that end the install (NOT_INSTALLED).
 */
export async function deprovisionInstall(job: JobRef, bundleId: number): Promise<Partial<StoredInstall>> {
  const tenantId = job.tenant_id;
  const install = await installOfJob(job, bundleId);
  try {
    if (install.sdk_client_id !== null) await deprovision(tenantId, install.sdk_client_id);
  } catch (error) {
    throw new AppError('80-8043', { cause: error });
  }
  await Promise.all([
    deleteSessionsOf(tenantId, bundleId),
    deleteRunsOf(tenantId, bundleId),
    deleteValuesOf(tenantId, bundleId),
  ]);
  return { status: 'NOT_INSTALLED', enabled: false, sdk_client_id: null };
}

/** The installed bundle, as the install and uninstall steps answer it. */
type InstallOutput = { readonly bundle_id: number };

/** The install job's step (functions/jobs/provision-app.ts): provisionInstall's fields complete the job. */
export async function installStep({
  job,
  params,
}: JobStep<z.output<typeof installAppJob.params>>): Promise<JobOutcome<InstallOutput>> {
  return {
    progress: { stage: 'DONE', percent: 100 },
    fields: await provisionInstall(job, params.bundle_id),
    output: { bundle_id: params.bundle_id },
  };
}

/** The uninstall job's step (functions/jobs/deprovision-app.ts): deprovisionInstall's fields complete the job. */
export async function uninstallStep({
  job,
  params,
}: JobStep<z.output<typeof uninstallAppJob.params>>): Promise<JobOutcome<InstallOutput>> {
  return {
    progress: { stage: 'DONE', percent: 100 },
    fields: await deprovisionInstall(job, params.bundle_id),
    output: { bundle_id: params.bundle_id },
  };
}
