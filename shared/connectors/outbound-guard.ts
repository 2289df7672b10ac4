import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { config } from '../config';
import { AppError } from '../errors/app-error';
import { inCidr, isForbiddenIp, parseCidrEntry, parseIpLiteral, sameAddress } from './ip-policy';

/**
 * Outbound calls go to hosts our users name, so they are a server-side request forgery risk.
 * Addresses are classified by ip-policy (loopback, private, link-local and cloud metadata,
 * carrier-grade NAT, multicast, reserved, and every IPv6 form that carries such an IPv4
 * address) and refused (30-1130) unless the OUTBOUND_ALLOW_LIST setting names them. The same
 * classification runs on address literals when a configuration is written and on every
 * address DNS returns when a connection is made, inside the resolution itself, so a name
 * cannot resolve to a public address when checked and to a private one when used.
 */
export function isForbiddenAddress(address: string): boolean {
  const ip = parseIpLiteral(address);
  return ip === undefined || isForbiddenIp(ip);
}

/** Allow-list entries: `host:port` (a name or an address, exact port) or a CIDR (any port). */
function isAllowListed(host: string, address: string, port: number): boolean {
  const ip = parseIpLiteral(address);
  for (const entry of config.outboundAllowList) {
    const cidr = parseCidrEntry(entry);
    if (cidr) {
      if (ip && inCidr(ip, cidr)) return true;
      continue;
    }
    const separator = entry.lastIndexOf(':');
    if (Number(entry.slice(separator + 1)) !== port) continue;
    const entryHost = entry
      .slice(0, separator)
      .replace(/^\[|\]$/g, '')
      .toLowerCase();
    const entryIp = parseIpLiteral(entryHost);
    if (entryHost === host.toLowerCase() || (ip && entryIp && sameAddress(ip, entryIp))) return true;
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
  const literal = parseIpLiteral(host);
  if ((loopbackName || (literal && isForbiddenIp(literal))) && !isAllowListed(host, host, port))
    throw blockedDestination(host);
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
      const blocked = addresses.find(
        ({ address }) => isForbiddenAddress(address) && !isAllowListed(hostname, address, port),
      );
      if (blocked) return callback(new OutboundDestinationBlocked(hostname), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
