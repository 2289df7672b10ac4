import * as z from 'zod';
import { AppError } from '../../errors/app-error';
import type { ErrorCode } from '../../errors/catalogue';
import { classifyNoAnswer } from '../no-answer';

/**
 * What a token endpoint's answers and silences mean (30-12xx). The error codes are RFC 6749
 * §5.2's; which client value was wrong is told only by descriptions, so the few spellings
 * real servers use are recognised (Microsoft Entra ID's AADSTS numbers, Okta's and others'
 * wording) and anything else stays the joint 30-1202. Only the server's error code and HTTP
 * status reach the caller, never its description, which may echo what was sent.
 */

/** Descriptions that blame the secret: Entra's "invalid client secret" numbers, and the word. */
const SECRET_REFUSED = /AADSTS7000215|AADSTS7000222|AADSTS7000232|client[ _-]?secret|secret/i;
/** Descriptions that say the client is unknown: Entra's "application not found", Okta's "client_id". */
const CLIENT_UNKNOWN =
  /AADSTS700016|AADSTS90002|client[ _-]?id|unknown client|client not found|no client|application with identifier/i;

/** An error answer (RFC 6749 §5.2); the description is optional and free text. */
const OAuthErrorAnswer = z.object({ error: z.string().min(1), error_description: z.string().optional() });
type OAuthErrorAnswer = z.output<typeof OAuthErrorAnswer>;

/** A provider error code as it may be shown: printable ASCII, short (RFC 6749 allows no more). */
function shownCode(error: string): string | undefined {
  return /^[\x20-\x7e]{1,64}$/.test(error) ? error : undefined;
}

function codeFor(status: number, answer: OAuthErrorAnswer | undefined): ErrorCode {
  // Not a token endpoint at all: nothing there, it does not take POST, or it sends elsewhere.
  if (status === 404 || status === 405 || (status >= 300 && status < 400)) return '30-1204';
  if (!answer) {
    if (status === 401 || status === 403) return '30-1202';
    if (status >= 400 && status < 500) return '30-1207';
    return '30-1206';
  }
  switch (answer.error) {
    case 'invalid_client':
    case 'unauthorized_client':
      if (SECRET_REFUSED.test(answer.error_description ?? '')) return '30-1201';
      if (CLIENT_UNKNOWN.test(answer.error_description ?? '')) return '30-1200';
      return '30-1202';
    case 'invalid_scope':
      return '30-1203';
    case 'invalid_request':
    case 'invalid_grant':
    case 'unsupported_grant_type':
      return '30-1207';
    default:
      // server_error, temporarily_unavailable and codes of no standard.
      return '30-1206';
  }
}

/** The code of a token endpoint's non-200 answer (`json` is its body, parsed when it was JSON). */
export function oauthTokenError(status: number, json: unknown): AppError {
  const parsed = OAuthErrorAnswer.safeParse(json);
  const answer = parsed.success ? parsed.data : undefined;
  const providerError = answer ? shownCode(answer.error) : undefined;
  return new AppError(codeFor(status, answer), {
    extraDetails: { provider_status: status, ...(providerError ? { provider_error: providerError } : {}) },
  });
}

/**
 * The code of a token call that got no answer: a refused destination is 30-1130, a name
 * that does not resolve or a port nobody listens on 30-1204, a timeout, reset or TLS failure
 * 30-1205 (transient, the server's side).
 */
export function oauthTransportError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const sorted = classifyNoAnswer(error, { abortIsTimeout: true });
  if (sorted.kind === 'blocked') return sorted.error;
  const extraDetails = { provider_error: sorted.reason ?? 'Unknown' };
  return new AppError(sorted.kind === 'unreachable' ? '30-1204' : '30-1205', { cause: error, extraDetails });
}
