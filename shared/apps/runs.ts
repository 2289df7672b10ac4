import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { Principal } from '../auth/principal';
import { RecordStore } from '../db/record-store';
import { AppError, isAppError, validationError } from '../errors/app-error';
import type { RunResponse } from '../model/app-install';
import { bundleStore, versionOf } from './bundles';
import { installedApp } from './installs';
import { ACTION_KINDS } from './run-actions';
import { assertOwnApp, sessionContextOf } from './sdk-context';
import { getSession } from './sessions';

/**
 * Runs of an app's declared actions (docs/apps.md): the service carries them out itself, with
 * the app's credentials (the SDK token's principal), before it answers (run-actions.ts); the
 * run is kept with its outcome, keyed by `<bundle id>#<run id>`.
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

/** Codes a run answers rather than keeps: the app's backend gave no usable answer, nothing ran. */
const ANSWERED_CODES: ReadonlySet<string> = new Set(['80-8032', '80-8036']);

/**
 * Runs `actionName` for the app of the caller's SDK token: 80-8022 without a session context,
 * 80-8031 for a session that is gone, 80-8014 for an app not installed, 80-8029 when disabled,
 * 80-8030 when the session's user may not run apps or the app's roles do not grant what the
 * action needs, 10-1400 for an action the manifest lacks or an input its kind refuses. What
 * the action itself fails with (a table without a preview, a node already running) is kept on
 * the run as FAILED; a backend that does not answer usably is answered (80-8032, 80-8036).
 */
export async function startRun(
  app: Principal,
  bundleId: number,
  actionName: string,
  input: Readonly<Record<string, unknown>> = {},
): Promise<StoredRun> {
  const { tenantId } = app;
  const sessionId = sessionContextOf(app, '80-8022');
  assertOwnApp(app, bundleId);
  const session = await getSession(tenantId, bundleId, sessionId);
  const install = await installedApp(tenantId, bundleId);
  if (!install.enabled) throw new AppError('80-8029', { params: [bundleId] });
  if (!session.can_run) throw new AppError('80-8030');
  const manifest = versionOf(await bundleStore.get(tenantId, bundleId), session.version_number).manifest;
  const declared = manifest?.run_actions.find((action) => action.name === actionName);
  if (!manifest || !declared) throw validationError({ action: `is not one of the app's run actions` });
  const kind = ACTION_KINDS[declared.kind];
  if (kind.permission !== null && !app.permissions.includes(kind.permission))
    throw new AppError('80-8030', {
      extraDetails: { required_permission: kind.permission, reason: 'the roles of the app’s manifest do not grant it' },
    });
  const runId = randomUUID();
  const context = {
    tenant_id: tenantId,
    bundle_id: bundleId,
    session_id: sessionId,
    run_id: runId,
    action: actionName,
  };
  const carryOut = kind.prepare({ app, declared, manifest, context }, input);
  const started = new Date().toISOString();
  let outcome: Pick<StoredRun, 'status' | 'result' | 'error'>;
  try {
    outcome = { status: 'COMPLETED', result: await carryOut(), error: null };
  } catch (error) {
    if (!isAppError(error) || ANSWERED_CODES.has(error.code)) throw error;
    outcome = { status: 'FAILED', result: null, error: { code: error.code, message: error.message } };
  }
  const run: StoredRun = {
    run_id: runId,
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
