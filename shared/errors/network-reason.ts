/**
 * What a call that got no answer from a provider reports in `provider_error`: a word of the
 * service's own, not the runtime's errno name (ECONNREFUSED, ENOTFOUND) nor an exception's
 * class (TimeoutError). Those name how Node failed, which is our implementation and could
 * change with it; these name what happened on the way to the provider, and stay.
 */
export type NetworkReason =
  'host_not_found' | 'connection_refused' | 'connection_reset' | 'unreachable' | 'timeout' | 'network_error';

const REASONS: Readonly<Record<string, NetworkReason>> = {
  ENOTFOUND: 'host_not_found',
  EAI_AGAIN: 'host_not_found',
  EAI_FAIL: 'host_not_found',
  EANSWERTOOLARGE: 'host_not_found',
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  ECONNABORTED: 'connection_reset',
  EPIPE: 'connection_reset',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENETDOWN: 'unreachable',
  ETIMEDOUT: 'timeout',
  ESOCKETTIMEDOUT: 'timeout',
};

/** Whether `code` is a network error code (an errno name such as ECONNREFUSED), not one of Node's own ERR_* codes. */
export function isNetworkCode(code: unknown): code is string {
  return typeof code === 'string' && /^E(?!RR_)[A-Z_]+$/.test(code);
}

/** The reason of a network failure whose errno name is `code`; `network_error` for one not listed. */
export function networkReason(code: string): NetworkReason {
  return Object.hasOwn(REASONS, code) ? REASONS[code]! : 'network_error';
}
