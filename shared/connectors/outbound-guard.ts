import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { config } from '../config';
import { AppError } from '../errors/app-error';

/**
 * Outbound calls go to hosts our users name, so they are a server-side request forgery risk.
 * Loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast and reserved
 * addresses are refused (30-1130) unless the OUTBOUND_ALLOW_LIST setting names them. The
 * check runs inside DNS resolution of the actual connection, so a name cannot resolve to a
 * public address when checked and to a private one when used.
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** An IPv6 address that carries an IPv4 one (mapped ::ffff:a.b.c.d, or NAT64 64:ff9b::/96). */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return undefined;
  if (match[1]) return match[1];
  const high = parseInt(match[2]!, 16);
  const low = parseInt(match[3]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address.toLowerCase());
    return v4 !== undefined ? FORBIDDEN.check(v4, 'ipv4') : FORBIDDEN.check(address, 'ipv6');
  }
  return true;
}

/** Allow-list entries: `host:port` (a name or an address, exact port) or a CIDR (any port). */
function isAllowListed(host: string, address: string, port: number): boolean {
  for (const entry of config.outboundAllowList) {
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const family = isIP(cidr[1]!);
      const list = new BlockList();
      if (family === 0) continue;
      list.addSubnet(cidr[1]!, Number(cidr[2]), family === 4 ? 'ipv4' : 'ipv6');
      if (isIP(address) === family && list.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
      continue;
    }
    const separator = entry.lastIndexOf(':');
    const entryHost = entry.slice(0, separator).replace(/^\[|\]$/g, '').toLowerCase();
    if (Number(entry.slice(separator + 1)) === port && (entryHost === host.toLowerCase() || entryHost === address)) return true;
  }
  return false;
}

export function blockedDestination(host: string): AppError {
  return new AppError('30-1130', { extraDetails: { host } });
}

/** Hostname of a URL without IPv6 brackets or the root label's trailing dot ("localhost." is localhost). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

export function portOf(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
}

/**
 * What can be decided without DNS: an address literal in a forbidden range, or a name that
 * is loopback by definition (RFC 6761). Runs when a configuration is written, and before
 * every connection.
 */
export function assertDestinationAllowed(url: URL): void {
  const host = hostOf(url).toLowerCase();
  const port = portOf(url);
  const loopbackName = host === 'localhost' || host.endsWith('.localhost');
  const literal = isIP(host) !== 0;
  if ((loopbackName || (literal && isForbiddenAddress(host))) && !isAllowListed(host, host, port)) throw blockedDestination(host);
}

export function isAllowedPlainHttp(url: URL): boolean {
  const host = hostOf(url);
  return isAllowListed(host, host, portOf(url));
}

export class OutboundDestinationBlocked extends Error {
  constructor(readonly host: string) {
    super(`outbound destination ${host} is not allowed`);
    this.name = 'OutboundDestinationBlocked';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for the agents of one destination port that refuses forbidden addresses. */
export function guardedLookup(port: number) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const blocked = addresses.find(({ address }) => isForbiddenAddress(address) && !isAllowListed(hostname, address, port));
      if (blocked) return callback(new OutboundDestinationBlocked(hostname), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
