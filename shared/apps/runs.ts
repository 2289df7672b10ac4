import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { Principal } from '../auth/principal';
import { dataTableStore } from '../data-tables/store';
import { RecordStore } from '../db/record-store';
import { AppError, isAppError, validationError } from '../errors/app-error';
import type { RunResponse } from '../model/app-install';
import { bundleStore, versionOf } from './bundles';
import { installedApp } from './installs';
import { assertOwnApp, sessionContextOf } from './sdk-context';
import { getSession } from './sessions';

/**
 * Runs of an app's declared actions (docs/apps.md): the service carries them out itself, with
 * the app's credentials (the SDK token's principal), before it answers; the run is kept with
 * its outcome, keyed by `<bundle id>#<run id>`.
 */
const StoredRun = z.object({
  run_id: z.string(),
  bundle_id: z.int(),
  session_id: z.string(),
  action: z.string(),
  status: z.enum(['COMPLETED', 'FAILED']),
  result: z.json().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  started_date: z.iso.datetime(),
  ended_date: z.iso.datetime(),
}) satisfies z.ZodType<RunResponse>;
type StoredRun = z.infer<typeof StoredRun>;

const recordId = (bundleId: number, runId: string) => `${bundleId}#${runId}`;
const runs = new RecordStore({
  kind: 'APP_RUN',
  schema: StoredRun,
  idOf: (run) => recordId(run.bundle_id, run.run_id),
});

/** What each kind of action does, as the app. */
const ACTIONS = {
  async list_data_tables(app: Principal): Promise<z.infer<ReturnType<typeof z.json>>> {
    if (!app.permissions.includes('data:read'))
      throw new AppError('10-403', { extraDetails: { required_permission: 'data:read' } });
    const tables = await dataTableStore.list(app.tenantId);
    return { tables: tables.map((table) => ({ id: table.id, name: table.data.name })) };
  },
} as const;

/**
 * Runs `actionName` for the app of the caller's SDK token: 80-8022 without a session context,
 * 80-8031 for a session that is gone, 80-8014 for an app not installed, 80-8029 when disabled,
 * 80-8030 when the session's user may not run apps, 10-1400 for an action the manifest lacks.
 */
export async function startRun(app: Principal, bundleId: number, actionName: string): Promise<StoredRun> {
  const { tenantId } = app;
  const sessionId = sessionContextOf(app, '80-8022');
  assertOwnApp(app, bundleId);
  const session = await getSession(tenantId, bundleId, sessionId);
  const install = await installedApp(tenantId, bundleId);
  if (!install.enabled) throw new AppError('80-8029', { params: [bundleId] });
  if (!session.can_run) throw new AppError('80-8030');
  const manifest = versionOf(await bundleStore.get(tenantId, bundleId), session.version_number).manifest;
  const declared = manifest?.run_actions.find((action) => action.name === actionName);
  if (!declared) throw validationError({ action: `is not one of the app's run actions` });
  const started = new Date().toISOString();
  let outcome: Pick<StoredRun, 'status' | 'result' | 'error'>;
  try {
    outcome = { status: 'COMPLETED', result: await ACTIONS[declared.kind](app), error: null };
  } catch (error) {
    if (!isAppError(error)) throw error;
    outcome = { status: 'FAILED', result: null, error: { code: error.code, message: error.message } };
  }
  const run: StoredRun = {
    run_id: randomUUID(),
    bundle_id: bundleId,
    session_id: sessionId,
    action: actionName,
    ...outcome,
    started_date: started,
    ended_date: new Date().toISOString(),
  };
  await runs.put(tenantId, run);
  return run;
}

/** A run of the app; 80-8034 when the tenant has none of that id. */
export async function getRun(tenantId: string, bundleId: number, runId: string): Promise<StoredRun> {
  const run = await runs.find(tenantId, recordId(bundleId, runId));
  if (!run) throw new AppError('80-8034');
  return run;
}

/** Removes every run of the install (its uninstall). */
export async function deleteRunsOf(tenantId: string, bundleId: number): Promise<void> {
  const all = await runs.list(tenantId, `${bundleId}#`);
  await Promise.all(all.map((run) => runs.delete(tenantId, recordId(bundleId, run.run_id))));
}
