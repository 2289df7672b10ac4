import type { LookupAddress } from 'node:dns';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors/app-error';
import {
  OutboundDestinationBlocked,
  assertDestinationAllowed,
  guardedLookup,
  isAllowedPlainHttp,
  isForbiddenAddress,
} from '../../../shared/connectors/outbound-guard';

const savedAllowList = process.env.OUTBOUND_ALLOW_LIST;
beforeEach(() => {
  delete process.env.OUTBOUND_ALLOW_LIST;
});
afterEach(() => {
  if (savedAllowList === undefined) delete process.env.OUTBOUND_ALLOW_LIST;
  else process.env.OUTBOUND_ALLOW_LIST = savedAllowList;
});

function blockedHost(url: string): string | undefined {
  try {
    assertDestinationAllowed(new URL(url));
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('30-1130');
    expect((error as AppError).status).toBe(400);
    return (error as AppError).extraDetails?.host as string;
  }
}

describe('isForbiddenAddress', () => {
  it.each([
    ['loopback', '127.0.0.1'],
    ['loopback, end of range', '127.255.255.254'],
    ['private 10/8', '10.0.0.1'],
    ['private 10/8, end of range', '10.255.255.255'],
    ['private 172.16/12', '172.16.0.1'],
    ['private 172.16/12, end of range', '172.31.255.255'],
    ['private 192.168/16', '192.168.1.1'],
    ['cloud metadata', '169.254.169.254'],
    ['link-local', '169.254.0.1'],
    ['carrier-grade NAT', '100.64.0.1'],
    ['carrier-grade NAT, end of range', '100.127.255.255'],
    ['this network', '0.0.0.0'],
    ['multicast', '224.0.0.1'],
    ['multicast, end of range', '239.255.255.255'],
    ['reserved and broadcast', '255.255.255.255'],
    ['documentation', '192.0.2.10'],
    ['benchmarking', '198.18.0.1'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 unique local', 'fc00::1'],
    ['IPv6 metadata (unique local)', 'fd00:ec2::254'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
    ['IPv4-mapped loopback, upper case', '::FFFF:7F00:1'],
    ['IPv4-mapped metadata', '::ffff:a9fe:a9fe'],
    ['NAT64 metadata', '64:ff9b::a9fe:a9fe'],
    ['NAT64 private, dotted', '64:ff9b::10.0.0.1'],
  ])('forbids %s (%s)', (_label, address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    ['public IPv4', '8.8.8.8'],
    ['public IPv4', '1.1.1.1'],
    ['next to 172.16/12', '172.32.0.1'],
    ['next to 100.64/10', '100.128.0.1'],
    ['next to 192.168/16', '192.169.0.1'],
    ['public IPv6', '2606:4700::1111'],
    ['public IPv6', '2001:4860:4860::8888'],
    ['IPv4-mapped public', '::ffff:8.8.8.8'],
    ['NAT64 public', '64:ff9b::808:808'],
  ])('allows %s (%s)', (_label, address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it('forbids what is not an address at all', () => {
    expect(isForbiddenAddress('example.com')).toBe(true);
    expect(isForbiddenAddress('')).toBe(true);
  });
});

describe('assertDestinationAllowed', () => {
  it('refuses forbidden address literals with 30-1130 naming the host', () => {
    expect(blockedHost('https://127.0.0.1/')).toBe('127.0.0.1');
    expect(blockedHost('https://10.1.2.3:8443/x')).toBe('10.1.2.3');
    expect(blockedHost('https://169.254.169.254/latest/meta-data')).toBe('169.254.169.254');
    expect(blockedHost('https://[::1]/')).toBe('::1');
    expect(blockedHost('https://[fd00:ec2::254]/')).toBe('fd00:ec2::254');
    expect(blockedHost('https://[::ffff:127.0.0.1]/')).toBe('::ffff:7f00:1');
  });

  it('refuses the loopback names localhost and *.localhost in any case', () => {
    expect(blockedHost('https://localhost/')).toBe('localhost');
    expect(blockedHost('http://LocalHost:8080/')).toBe('localhost');
    expect(blockedHost('https://api.localhost/')).toBe('api.localhost');
  });

  it('allows public literals and names, which are checked again when resolved', () => {
    expect(blockedHost('https://8.8.8.8/')).toBeUndefined();
    expect(blockedHost('https://[2606:4700::1111]/')).toBeUndefined();
    expect(blockedHost('https://s3.eu-west-1.amazonaws.com/')).toBeUndefined();
    expect(blockedHost('https://localhost.example.com/')).toBeUndefined();
  });

  it('allows an allow-listed host:port, and only on that port', () => {
    process.env.OUTBOUND_ALLOW_LIST = '127.0.0.1:4569';
    expect(blockedHost('http://127.0.0.1:4569/')).toBeUndefined();
    expect(blockedHost('https://127.0.0.1:4570/')).toBe('127.0.0.1');
    expect(blockedHost('https://127.0.0.1/')).toBe('127.0.0.1');
    expect(blockedHost('http://localhost:4569/')).toBe('localhost');
  });

  it('allows an allow-listed name:port', () => {
    process.env.OUTBOUND_ALLOW_LIST = 'localhost:4569, [::1]:443';
    expect(blockedHost('http://localhost:4569/')).toBeUndefined();
    expect(blockedHost('http://LOCALHOST:4569/')).toBeUndefined();
    expect(blockedHost('https://[::1]/')).toBeUndefined();
    expect(blockedHost('https://[::1]:444/')).toBe('::1');
  });

  it('allows any port of an allow-listed CIDR', () => {
    process.env.OUTBOUND_ALLOW_LIST = '10.0.0.0/8';
    expect(blockedHost('https://10.20.30.40/')).toBeUndefined();
    expect(blockedHost('http://10.0.0.1:9000/')).toBeUndefined();
    expect(blockedHost('https://11.0.0.1/')).toBeUndefined();
    expect(blockedHost('https://192.168.0.1/')).toBe('192.168.0.1');
    expect(blockedHost('https://127.0.0.1/')).toBe('127.0.0.1');
  });

  it('reads the allow-list at every call', () => {
    expect(blockedHost('https://10.0.0.1/')).toBe('10.0.0.1');
    process.env.OUTBOUND_ALLOW_LIST = '10.0.0.0/8';
    expect(blockedHost('https://10.0.0.1/')).toBeUndefined();
    delete process.env.OUTBOUND_ALLOW_LIST;
    expect(blockedHost('https://10.0.0.1/')).toBe('10.0.0.1');
  });
});

describe('isAllowedPlainHttp', () => {
  it('is true only for allow-listed destinations', () => {
    expect(isAllowedPlainHttp(new URL('http://127.0.0.1:4569/'))).toBe(false);
    process.env.OUTBOUND_ALLOW_LIST = '127.0.0.1:4569';
    expect(isAllowedPlainHttp(new URL('http://127.0.0.1:4569/'))).toBe(true);
    expect(isAllowedPlainHttp(new URL('http://127.0.0.1/'))).toBe(false);
    expect(isAllowedPlainHttp(new URL('http://example.com/'))).toBe(false);
  });
});

describe('guardedLookup', () => {
  type Outcome = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family: number | undefined };
  const resolve = (port: number, hostname: string, options: { all?: boolean; family?: number } = {}) =>
    new Promise<Outcome>((done) => {
      guardedLookup(port)(hostname, options, (error, address, family) => done({ error, address, family }));
    });

  it('refuses a name that resolves to a forbidden address', async () => {
    const { error, address } = await resolve(443, 'localhost');
    expect(error).toBeInstanceOf(OutboundDestinationBlocked);
    expect((error as OutboundDestinationBlocked).host).toBe('localhost');
    expect(error?.message).toBe('outbound destination localhost is not allowed');
    expect(address).toEqual([]);
  });

  it('resolves an allow-listed name on its port, in the shape the caller asked for', async () => {
    process.env.OUTBOUND_ALLOW_LIST = 'localhost:4569';
    const single = await resolve(4569, 'localhost', { family: 4 });
    expect(single).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    const all = await resolve(4569, 'localhost', { all: true, family: 4 });
    expect(all.error).toBeNull();
    expect(all.address).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('resolves a name whose address is allow-listed for the port', async () => {
    process.env.OUTBOUND_ALLOW_LIST = '127.0.0.1:4569';
    expect(await resolve(4569, 'localhost', { family: 4 })).toEqual({ error: null, address: '127.0.0.1', family: 4 });
  });

  it('still refuses the allow-listed destination on another port', async () => {
    process.env.OUTBOUND_ALLOW_LIST = 'localhost:4569,127.0.0.1:4569';
    const { error } = await resolve(4570, 'localhost', { family: 4 });
    expect(error).toBeInstanceOf(OutboundDestinationBlocked);
  });

  it('resolves an address inside an allow-listed CIDR on any port', async () => {
    process.env.OUTBOUND_ALLOW_LIST = '127.0.0.0/8';
    expect(await resolve(12345, 'localhost', { family: 4 })).toEqual({ error: null, address: '127.0.0.1', family: 4 });
  });
});
