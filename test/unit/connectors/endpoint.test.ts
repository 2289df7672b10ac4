import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceHost, serviceUrl } from '../../../shared/connectors/endpoint';
import { refusal } from '../../support/refusal';

const savedAllowList = process.env.OUTBOUND_ALLOW_LIST;
beforeEach(() => {
  delete process.env.OUTBOUND_ALLOW_LIST;
});
afterEach(() => {
  if (savedAllowList === undefined) delete process.env.OUTBOUND_ALLOW_LIST;
  else process.env.OUTBOUND_ALLOW_LIST = savedAllowList;
});

function invalid(raw: string, field = 'auth.endpoint'): string {
  const error = refusal(() => serviceUrl(raw, field));
  expect(error.code).toBe('10-1008');
  expect(error.status).toBe(400);
  expect(error.message).toBe('Provided URL is not valid');
  expect(Object.keys(error.extraDetails ?? {})).toEqual([field]);
  return String(error.extraDetails?.[field]);
}

function blocked(run: () => unknown): string {
  const error = refusal(run);
  expect(error.code).toBe('30-1130');
  expect(error.message).toBe('Custom host not allowed by default; contact support');
  return String(error.extraDetails?.host);
}

describe('serviceUrl', () => {
  it('accepts https URLs and returns them parsed', () => {
    const url = serviceUrl('https://s3.eu-west-1.amazonaws.com', 'auth.endpoint');
    expect(url.href).toBe('https://s3.eu-west-1.amazonaws.com/');
    expect(serviceUrl('https://sts.example.com:8443/v1/token?x=1', 'auth.token_url').href).toBe(
      'https://sts.example.com:8443/v1/token?x=1',
    );
    expect(serviceUrl('  https://example.com  ', 'auth.endpoint').hostname).toBe('example.com');
  });

  it('refuses what is not an absolute URL, naming the field', () => {
    expect(invalid('not a url')).toBe('must be an absolute https:// URL');
    expect(invalid('/relative/path')).toBe('must be an absolute https:// URL');
    expect(invalid('')).toBe('must be an absolute https:// URL');
    expect(invalid('https://', 'auth.token_url')).toBe('must be an absolute https:// URL');
  });

  it('refuses schemes other than https', () => {
    expect(invalid('ftp://example.com/')).toBe('must be an absolute https:// URL');
    expect(invalid('file:///etc/passwd')).toBe('must be an absolute https:// URL');
    expect(invalid('mailto:a@example.com')).toBe('must be an absolute https:// URL');
  });

  it('refuses plain http unless the destination is allow-listed', () => {
    expect(invalid('http://example.com/')).toBe('must be an absolute https:// URL');
    expect(invalid('http://127.0.0.1:4569/')).toBe('must be an absolute https:// URL');
    process.env.OUTBOUND_ALLOW_LIST = '127.0.0.1:4569';
    expect(serviceUrl('http://127.0.0.1:4569/', 'auth.endpoint').port).toBe('4569');
    expect(invalid('http://127.0.0.1:4570/')).toBe('must be an absolute https:// URL');
  });

  it('refuses credentials in the URL', () => {
    expect(invalid('https://user:pass@example.com/')).toBe('must not carry credentials');
    expect(invalid('https://user@example.com/')).toBe('must not carry credentials');
  });

  it('refuses a fragment', () => {
    expect(invalid('https://example.com/path#section')).toBe('must not have a fragment');
  });

  it('never echoes the URL in the error', () => {
    const error = refusal(() => serviceUrl('https://admin:s3cr3tPassw0rd@example.com/', 'auth.endpoint'));
    expect(JSON.stringify({ message: error.message, extraDetails: error.extraDetails })).not.toContain(
      's3cr3tPassw0rd',
    );
  });

  it('refuses forbidden destinations with 30-1130', () => {
    expect(blocked(() => serviceUrl('https://169.254.169.254/latest/meta-data', 'auth.endpoint'))).toBe(
      '169.254.169.254',
    );
    expect(blocked(() => serviceUrl('https://[::1]/', 'auth.endpoint'))).toBe('::1');
    expect(blocked(() => serviceUrl('https://localhost/', 'auth.endpoint'))).toBe('localhost');
    expect(blocked(() => serviceUrl('https://localhost./', 'auth.endpoint'))).toBe('localhost');
    expect(blocked(() => serviceUrl('https://api.localhost./', 'auth.endpoint'))).toBe('api.localhost');
    expect(blocked(() => serviceUrl('https://192.168.0.10:9000/', 'auth.endpoint'))).toBe('192.168.0.10');
  });

  it('refuses numeric host spellings that normalise to a forbidden address', () => {
    expect(blocked(() => serviceUrl('https://2130706433/', 'auth.endpoint'))).toBe('127.0.0.1');
    expect(blocked(() => serviceUrl('https://0x7f.1/', 'auth.endpoint'))).toBe('127.0.0.1');
    expect(blocked(() => serviceUrl('https://[0:0:0:0:0:ffff:a9fe:a9fe]/', 'auth.endpoint'))).toBe('::ffff:a9fe:a9fe');
  });
});

describe('serviceHost', () => {
  it('accepts host names, with or without a port, as https URLs', () => {
    expect(serviceHost('s3.example.com', 'auth.host').href).toBe('https://s3.example.com/');
    expect(serviceHost(' warehouse.example.com:9443 ', 'auth.host').href).toBe('https://warehouse.example.com:9443/');
    expect(serviceHost('https://s3.example.com/base', 'auth.host').href).toBe('https://s3.example.com/base');
  });

  it('refuses what is neither a host name nor a URL, naming the field', () => {
    for (const raw of ['bad host', '-leading.example.com', 'under_score.example.com', 'a..b', 'host:port', '']) {
      const error = refusal(() => serviceHost(raw, 'auth.host'));
      expect(error.code, raw).toBe('10-1008');
      expect(error.extraDetails, raw).toEqual({ 'auth.host': 'must be a host name or an https:// URL' });
    }
  });

  it('applies the URL rules to a URL given as host', () => {
    const error = refusal(() => serviceHost('ftp://example.com', 'auth.host'));
    expect(error.code).toBe('10-1008');
    expect(error.extraDetails).toEqual({ 'auth.host': 'must be an absolute https:// URL' });
  });

  it('refuses forbidden hosts with 30-1130', () => {
    expect(blocked(() => serviceHost('localhost', 'auth.host'))).toBe('localhost');
    expect(blocked(() => serviceHost('10.0.0.5', 'auth.host'))).toBe('10.0.0.5');
    expect(blocked(() => serviceHost('2130706433', 'auth.host'))).toBe('127.0.0.1');
  });
});
