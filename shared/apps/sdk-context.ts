import type { Principal } from '../auth/principal';
import { AppError } from '../errors/app-error';
import type { ErrorCode } from '../errors/catalogue';

/**
 * The contexts an SDK token carries (docs/apps.md): the app context (the bundle the token acts
 * for) and the session context (the session it was issued for). Tokens of the tenant's own API
 * clients carry neither.
 */

/** The token's session id; `code` (80-8022, 80-8024) when it has no session context. */
export function sessionContextOf(principal: Principal, code: Extract<ErrorCode, '80-8022' | '80-8024'>): string {
  if (principal.sessionId === undefined) throw new AppError(code);
  return principal.sessionId;
}

/** An SDK token reaches only its own app: another bundle's install reads as not installed (80-8014). */
export function assertOwnApp(principal: Principal, bundleId: number): void {
  if (principal.appBundleId !== undefined && principal.appBundleId !== bundleId)
    throw new AppError('80-8014', { params: [bundleId] });
}

/**
 * Activity reports need both contexts, for this session of this app: a token without the app
 * context of the path's bundle is 80-8027, one without the path's session as its session
 * context 80-8024.
 */
export function assertActivityContext(principal: Principal, bundleId: number, sessionId: string): void {
  if (principal.appBundleId !== bundleId) throw new AppError('80-8027');
  if (sessionContextOf(principal, '80-8024') !== sessionId) throw new AppError('80-8024');
}
