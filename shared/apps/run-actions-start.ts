import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import { AppError, isAppError, validationError } from '../errors/app-error';
import { bundleStore, versionOf } from './bundles';
import { installedApp } from './installs';
import { ACTION_KINDS } from './run-actions';
import { keepRun, type StoredRun } from './runs';
import { assertOwnApp, sessionContextOf } from './sdk-context';
import { getSession } from './sessions';

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
  await keepRun(tenantId, run);
  return run;
}
