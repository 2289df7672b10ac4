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
    ['IPv4-compatible loopback', '::127.0.0.1'],
    ['IPv4-compatible loopback, hex', '::7f00:1'],
    ['SIIT loopback', '::ffff:0:127.0.0.1'],
    ['SIIT metadata, hex', '::ffff:0:a9fe:a9fe'],
    ['NAT64 local-use prefix', '64:ff9b:1::808:808'],
    ['6to4 of a private address', '2002:c0a8:101::1'],
    ['Teredo with a loopback server', '2001:0:7f00:1:0:0:f7f7:f7f7'],
    ['Teredo with a metadata client (inverted)', '2001:0:808:808:8000:ffff:5601:5601'],
    ['decimal loopback', '2130706433'],
    ['octal loopback', '0177.0.0.1'],
    ['hexadecimal loopback', '0x7f.1'],
    ['short loopback', '127.1'],
    ['mixed-radix metadata', '0xa9.0376.43518'],
    ['IPv6 documentation', '2001:db8::1'],
    ['IPv6 site-local (deprecated)', 'fec0::1'],
    ['IPv6 outside global unicast', '4000::1'],
    ['AS112 anycast', '192.175.48.1'],
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
    ['IPv4-compatible public', '::8.8.8.8'],
    ['SIIT public', '::ffff:0:808:808'],
    ['6to4 of a public address', '2002:808:808::1'],
    ['Teredo with public server and client', '2001:0:808:808:8000:ffff:fefe:fefe'],
    ['decimal public', '134744072'],
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

  it('refuses the IPv6 forms that carry a loopback address, as the URL parser writes them', () => {
    expect(blockedHost('https://[::127.0.0.1]/')).toBe('::7f00:1');
    expect(blockedHost('https://[::ffff:0:127.0.0.1]/')).toBe('::ffff:0:7f00:1');
    expect(blockedHost('https://[2002:7f00:1::]/')).toBe('2002:7f00:1::');
  });

  it('refuses every IPv4 notation, which URLs normalise to the dotted form', () => {
    for (const host of ['2130706433', '0177.0.0.1', '0x7f.1', '127.1', '0X7F.0.0.01'])
      expect(blockedHost(`https://${host}/`)).toBe('127.0.0.1');
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

  it('matches an allow-listed address however either is written, but not its IPv6 carriers', () => {
    process.env.OUTBOUND_ALLOW_LIST = '[0:0::1]:443,127.0.0.0/8';
    expect(blockedHost('https://[::1]/')).toBeUndefined();
    expect(blockedHost('https://0x7f.1/')).toBeUndefined();
    expect(blockedHost('https://[::ffff:127.0.0.1]/')).toBe('::ffff:7f00:1');
  });

  it('takes a CIDR entry only with a full address, so 10/8 does not open 0.0.0.0/8', () => {
    process.env.OUTBOUND_ALLOW_LIST = '10/8';
    expect(blockedHost('https://0.0.0.10/')).toBe('0.0.0.10');
    expect(blockedHost('https://10.0.0.1/')).toBe('10.0.0.1');
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

  it('refuses what the resolver reads as a forbidden address, in any notation', async () => {
    for (const hostname of ['0x7f.1', '2130706433', '::ffff:0:7f00:1', '::7f00:1']) {
      expect((await resolve(443, hostname)).error, hostname).toBeInstanceOf(OutboundDestinationBlocked);
    }
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
