import ipaddr from 'ipaddr.js';

/** An IP address as ipaddr.js models it. */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * The address an IP literal denotes, in any spelling the resolvers and URL parsers accept:
 * IPv4 dotted, short (`127.1`), decimal (`2130706433`), octal (`0177.0.0.1`), hexadecimal
 * (`0x7f.1`) or mixed; IPv6 compressed or not, in any case, with a dotted IPv4 tail, in
 * brackets or not. Undefined for anything else (a host name).
 */
export function parseIpLiteral(text: string): IpAddress | undefined {
  const literal = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return ipaddr.isValid(literal) ? ipaddr.parse(literal) : undefined;
}

// ipaddr.js names no range for the deprecated IPv4-compatible form ::a.b.c.d (RFC 4291
// 2.5.5.1), and only 2000::/3 is allocated as global unicast (RFC 4291 2.4).
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

const ipv4At = (bytes: readonly number[], offset: number, mask = 0): ipaddr.IPv4 =>
  new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((byte) => byte ^ mask));

/**
 * The IPv4 addresses an IPv6 address carries, that a packet to it reaches through mapping,
 * translation or a tunnel; undefined when it carries none. Teredo (RFC 4380) reaches its
 * server (bits 32–63) and its client (the last 32 bits, inverted).
 */
function carriedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const bytes = address.toByteArray();
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:0:0/96
    case 'rfc6145': // ::ffff:0:0:0/96 (SIIT)
      return [ipv4At(bytes, 12)];
    case 'rfc6052': // 64:ff9b::/96; the local-use 64:ff9b:1::/48 is refused in isForbiddenIp
      return address.match(NAT64_WELL_KNOWN) ? [ipv4At(bytes, 12)] : undefined;
    case '6to4': // 2002::/16: the IPv4 address follows the prefix
      return [ipv4At(bytes, 2)];
    case 'teredo': // 2001::/32
      return [ipv4At(bytes, 4), ipv4At(bytes, 12, 0xff)];
    case 'unicast':
      return address.match(IPV4_COMPATIBLE) ? [ipv4At(bytes, 12)] : undefined;
    default:
      return undefined;
  }
}

/**
 * Whether outbound calls to this address are refused. An IPv4 address is allowed only when
 * it lies in no special range of ipaddr.js (loopback, private, link-local and cloud
 * metadata, carrier-grade NAT, unspecified, multicast, broadcast, documentation,
 * benchmarking, reserved, AS112, AMT). An IPv6 address that carries IPv4 addresses is
 * allowed only when every one of them is; any other IPv6 address only when it is global
 * unicast (2000::/3) in no special range. The NAT64 local-use prefix 64:ff9b:1::/48 is
 * refused whole: where the IPv4 address sits in it is the operator's choice.
 */
export function isForbiddenIp(address: IpAddress): boolean {
  if (address.kind() === 'ipv4') return address.range() !== 'unicast';
  const ipv6 = address as ipaddr.IPv6;
  const carried = carriedIpv4(ipv6);
  if (carried) return carried.some(isForbiddenIp);
  return ipv6.range() !== 'unicast' || !ipv6.match(GLOBAL_UNICAST);
}

/** Whether two addresses are the same, however each was written (never across families). */
export function sameAddress(a: IpAddress, b: IpAddress): boolean {
  return a.kind() === b.kind() && a.toNormalizedString() === b.toNormalizedString();
}

/**
 * An allow-list CIDR entry (`10.0.0.0/8`, `fd00::/8`): the address must be written in full
 * (four decimal parts for IPv4) so that `10/8` is not read as 0.0.0.10/8. Undefined when the
 * entry is not a CIDR.
 */
export function parseCidrEntry(entry: string): [IpAddress, number] | undefined {
  if (ipaddr.IPv4.isValidCIDRFourPartDecimal(entry)) return ipaddr.IPv4.parseCIDR(entry);
  if (ipaddr.IPv6.isValidCIDR(entry)) return ipaddr.IPv6.parseCIDR(entry);
  return undefined;
}

/** Whether the address lies in the CIDR (never across families). */
export function inCidr(address: IpAddress, [network, bits]: [IpAddress, number]): boolean {
  return address.kind() === network.kind() && address.match(network, bits);
}
