import { afterEach, describe, expect, it, vi } from 'vitest';
import { API_BASE_PATH, config } from '../../shared/config';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('config settings', () => {
  it('are their defaults while their variables are unset', () => {
    for (const name of ['TOKEN_TTL_SECONDS', 'ERROR_BASE_URL', 'OUTBOUND_ALLOW_LIST', 'TOKEN_ISSUER'])
      vi.stubEnv(name, undefined);
    expect(config.tokenTtlSeconds).toBe(900);
    expect(config.errorBase).toBe(API_BASE_PATH);
    expect(config.outboundAllowList).toEqual([]);
    expect(config.tokenIssuer).toBe('data-preparation-service');
  });

  it('are their variables, parsed', () => {
    vi.stubEnv('TOKEN_TTL_SECONDS', '600');
    vi.stubEnv('OUTBOUND_ALLOW_LIST', ' 10.0.0.0/8 , ,db.internal:5432');
    vi.stubEnv('WORK_DIRECTORY', '/scratch');
    expect(config.tokenTtlSeconds).toBe(600);
    expect(config.outboundAllowList).toEqual(['10.0.0.0/8', 'db.internal:5432']);
    expect(config.workDirectory).toBe('/scratch');
  });

  it('read an empty number as unset, and an empty text as the empty text', () => {
    vi.stubEnv('CONNECTOR_TIMEOUT_MS', '');
    vi.stubEnv('ERROR_BASE_URL', '');
    expect(config.connectorTimeoutMs).toBe(10_000);
    expect(config.errorBase).toBe('');
  });

  it('refuse a variable their rule refuses, naming it', () => {
    vi.stubEnv('JOB_INACTIVITY_SECONDS', '-5');
    expect(() => config.jobInactivitySeconds).toThrow(
      'environment variable JOB_INACTIVITY_SECONDS must be a positive integer',
    );
  });
});
