import * as z from 'zod';
import { issueAccessToken } from '../auth/access-token';
import { newClientId, tenantOfClientId } from '../auth/client-secrets';
import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import { is } from '../db/expressions';
import { StoredActor } from '../db/items';
import { RecordStore } from '../db/record-store';
import { AppError } from '../errors/app-error';
import type { SessionResponse } from '../model/app-install';
import { bundleStore, publishedVersion } from './bundles';
import { installedApp } from './installs';
import { sdkPrincipal } from './provisioning';
import { checkReturnTo } from './return-to';

/**
 * App sessions (docs/apps.md): an app opened by someone of the tenant. A session is keyed by
 * `<bundle id>#<session id>`; the session id names its tenant like a client id does
 * (`<tenant>.<128 random bits, hex>`), which lets the public asset route find it.
 */
const StoredSession = z.object({
  session_id: z.string(),
  bundle_id: z.int(),
  version_number: z.int(),
  return_to: z.string().nullable(),
  started_by: StoredActor,
  /** Whether the person who opened it may run apps (app:run): runs for the session need it (80-8030). */
  can_run: z.boolean(),
  started_date: z.iso.datetime(),
  last_activity_date: z.iso.datetime(),
});
export type StoredSession = z.infer<typeof StoredSession>;

const recordId = (bundleId: number, sessionId: string) => `${bundleId}#${sessionId}`;
const sessions = new RecordStore({
  kind: 'APP_SESSION',
  schema: StoredSession,
  idOf: (session) => recordId(session.bundle_id, session.session_id),
});

export function sessionResponse(session: StoredSession): SessionResponse {
  const { can_run: _canRun, ...shown } = session;
  return shown;
}

/** The tenant a session id names, or undefined for a malformed one. */
export function tenantOfSession(sessionId: string): string | undefined {
  return tenantOfClientId(sessionId);
}

export interface StartedSession {
  readonly session: StoredSession;
  readonly sdkToken: string;
  readonly expiresIn: number;
}

/**
 * Opens the INSTALLED app (80-8014) for `starter` on the bundle's published version, and issues
 * the SDK token: the app's SDK user (80-8035 when the tenant deleted it) with the session and
 * app contexts.
 */
export async function startSession(starter: Principal, bundleId: number, returnTo?: string): Promise<StartedSession> {
  const { tenantId } = starter;
  const checkedReturnTo = returnTo === undefined ? null : checkReturnTo(returnTo);
  const bundle = await bundleStore.get(tenantId, bundleId);
  const install = await installedApp(tenantId, bundleId);
  const app = await sdkPrincipal(tenantId, install.sdk_client_id);
  const now = new Date().toISOString();
  const session: StoredSession = {
    session_id: newClientId(tenantId),
    bundle_id: bundleId,
    version_number: publishedVersion(bundle).version_number,
    return_to: checkedReturnTo,
    started_by: actorOf(starter),
    can_run: starter.permissions.includes('app:run'),
    started_date: now,
    last_activity_date: now,
  };
  await sessions.putIf(tenantId, session, is.absent('pk'));
  const token = await issueAccessToken({ ...app, appBundleId: bundleId, sessionId: session.session_id });
  return { session, sdkToken: token.access_token, expiresIn: token.expires_in };
}

/** The session of the bundle; 80-8031 when the tenant has none of that id. */
export async function getSession(tenantId: string, bundleId: number, sessionId: string): Promise<StoredSession> {
  const session = await sessions.find(tenantId, recordId(bundleId, sessionId));
  if (!session) throw new AppError('80-8031', { params: [sessionId] });
  return session;
}

/** Records the app's heartbeat on its session. */
export async function recordActivity(tenantId: string, session: StoredSession): Promise<StoredSession> {
  const next = { ...session, last_activity_date: new Date().toISOString() };
  if (!(await sessions.putIf(tenantId, next, is.present('pk'))))
    throw new AppError('80-8031', { params: [session.session_id] });
  return next;
}

/** Removes every session of the install (its uninstall). */
export async function deleteSessionsOf(tenantId: string, bundleId: number): Promise<void> {
  const all = await sessions.list(tenantId, `${bundleId}#`);
  await Promise.all(all.map((session) => sessions.delete(tenantId, recordId(bundleId, session.session_id))));
}
