/**
 * The reasons network failures are reported with (shared/errors/network-reason.ts): a
 * vocabulary of the service's own, never Node's errno or ERR_* names.
 */
import { describe, expect, it } from 'vitest';
import { isNetworkCode, networkReason } from '../../../shared/errors/network-reason';

describe('network failure reasons', () => {
  it.each([
    ['ENOTFOUND', 'host_not_found'],
    ['EAI_AGAIN', 'host_not_found'],
    ['ECONNREFUSED', 'connection_refused'],
    ['ECONNRESET', 'connection_reset'],
    ['EPIPE', 'connection_reset'],
    ['EHOSTUNREACH', 'unreachable'],
    ['ETIMEDOUT', 'timeout'],
    ['EPROTO', 'network_error'],
  ])('%s is reported as %s', (code, reason) => {
    expect(isNetworkCode(code)).toBe(true);
    expect(networkReason(code)).toBe(reason);
  });

  it('Node’s own ERR_* codes, exception names and other values are not network codes', () => {
    for (const value of [
      'ERR_INVALID_CHAR',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'TimeoutError',
      'econnrefused',
      'E',
      403,
      undefined,
    ])
      expect(isNetworkCode(value)).toBe(false);
  });

  it('no reason spells an errno', () => {
    for (const code of ['ENOTFOUND', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'EWHATEVER'])
      expect(networkReason(code)).not.toMatch(/^E[A-Z]/);
  });
});
