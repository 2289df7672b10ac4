import * as z from 'zod';
import { defineJob, type WorkerSpec } from '../jobs/define-job';

/**
 * The jobs of app installs (docs/apps.md): POST /apps/installs claims the install INSTALLING
 * and starts `install-app`, DELETE /apps/installs/{bundle_id} marks it UNINSTALLING and starts
 * `uninstall-app`. The parameters name the install only: the worker reads the bundle, its
 * manifest and the install from the table, so nothing else travels through the state machine.
 */
const InstallJobParams = z.strictObject({ bundle_id: z.int().min(1) });

/**
 * Provisioning talks to the identity provider and the table only: a small function. Its time
 * limit is Lambda's largest like every worker's, since the single-step template times the work
 * step out first (a stuck provider ends as a recorded failure, 10-1047, never a job that hangs).
 */
const PROVISIONING_WORKER: Pick<WorkerSpec, 'timeoutSeconds' | 'memoryMb' | 'access'> = {
  timeoutSeconds: 900,
  memoryMb: 512,
  access: { table: 'write' },
};

export const installAppJob = defineJob({
  name: 'install-app',
  description:
    "Install of an app: the worker makes the app's SDK user with the manifest's roles at the identity provider and marks the install INSTALLED; a failure deletes what was made and leaves the install FAILED with the error (80-8026, 80-8040).",
  params: InstallJobParams,
  worker: { name: 'provision-app', handler: 'jobs/provision-app', ...PROVISIONING_WORKER },
});

export const uninstallAppJob = defineJob({
  name: 'uninstall-app',
  description:
    "Uninstall of an app: the worker deletes the app's SDK user, then its sessions, runs and values, and marks the install NOT_INSTALLED; when the SDK user cannot be deleted the install is INSTALLED again with the error (80-8043).",
  params: InstallJobParams,
  worker: { name: 'deprovision-app', handler: 'jobs/deprovision-app', ...PROVISIONING_WORKER },
});
