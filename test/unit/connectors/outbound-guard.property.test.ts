import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceHost, serviceUrl } from '../../../shared/connectors/endpoint';
import { isForbiddenAddress } from '../../../shared/connectors/outbound-guard';
import { AppError } from '../../../shared/errors/app-error';

/**
 * Properties of the outbound guard over generated spellings. A forbidden IPv4 address
 * (loopback, private, link-local and metadata, carrier-grade NAT, unspecified, multicast,
 * reserved, broadcast), written in every IPv4 notation resolvers accept or embedded in every
 * IPv6 form that carries or reaches an IPv4 address, written with and without zero
 * compression, zero padding, a dotted tail, in either case, is refused both where a
 * configuration is written (serviceUrl, serviceHost: 30-1130) and where DNS answers are
 * checked (isForbiddenAddress). The same spellings of public addresses pass. The ranges
 * below are the test's own, independent of the classification under test.
 */
// Each IPv6 run judges every form in all 16 writings (about 130 spellings), hence fewer runs.
const IPV4_RUNS = 100;
const IPV6_RUNS = 25;

const savedAllowList = process.env.OUTBOUND_ALLOW_LIST;
beforeEach(() => {
  delete process.env.OUTBOUND_ALLOW_LIST;
});
afterEach(() => {
  if (savedAllowList === undefined) delete process.env.OUTBOUND_ALLOW_LIST;
  else process.env.OUTBOUND_ALLOW_LIST = savedAllowList;
});

type Cidr = readonly [network: string, bits: number];
const toUint32 = (dotted: string): number => dotted.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
const inside = (address: number, [network, bits]: Cidr): boolean =>
  Math.floor(address / 2 ** (32 - bits)) === Math.floor(toUint32(network) / 2 ** (32 - bits));
const within = ([network, bits]: Cidr) =>
  fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => toUint32(network) + offset);

const FORBIDDEN_RANGES: readonly Cidr[] = [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
  ['100.64.0.0', 10],
  ['0.0.0.0', 8],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
/** Every IANA special-purpose IPv4 range (RFC 6890 and successors): public means none of them. */
const SPECIAL_RANGES: readonly Cidr[] = [
  ...FORBIDDEN_RANGES,
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
];

const forbiddenIpv4 = fc.oneof(
  ...FORBIDDEN_RANGES.map(within),
  fc.constant(toUint32('169.254.169.254')),
  fc.constant(toUint32('255.255.255.255')),
);
const publicIpv4 = fc
  .integer({ min: 0, max: 2 ** 32 - 1 })
  .filter((address) => !SPECIAL_RANGES.some((range) => inside(address, range)));

type Radix = 'dec' | 'oct' | 'hex';
const inRadix = (value: number, radix: Radix, upper: boolean): string =>
  radix === 'dec'
    ? String(value)
    : radix === 'oct'
      ? `0${value.toString(8)}`
      : `${upper ? '0X' : '0x'}${value.toString(16)}`;

/** Every IPv4 notation inet_aton and URL parsers accept: 4, 3, 2 or 1 parts, each part in its own radix. */
function ipv4Spellings(address: number, radixes: readonly Radix[], upper: boolean): string[] {
  const [a, b, c, d] = [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256) as [
    number,
    number,
    number,
    number,
  ];
  const write = (parts: readonly number[]) =>
    parts.map((part, index) => inRadix(part, radixes[index]!, upper)).join('.');
  return [
    [a, b, c, d].join('.'),
    write([a, b, c, d]),
    write([a, b, c * 256 + d]),
    write([a, b * 65536 + c * 256 + d]),
    ...(['dec', 'oct', 'hex'] as const).map((radix) => inRadix(address, radix, upper)),
  ];
}

/** The two 16-bit groups of an IPv4 address, optionally inverted (Teredo's client). */
const halves = (address: number, invert = false): [number, number] => {
  const value = invert ? 2 ** 32 - 1 - address : address;
  return [Math.floor(value / 65536), value % 65536];
};

/**
 * The IPv6 forms that carry `address`: IPv4-compatible, mapped, SIIT, NAT64 well-known,
 * 6to4, Teredo as server and as client (the other end being `other`). `noise` fills the
 * groups a form leaves free.
 */
function carriers(address: number, other: number, noise: readonly number[]): number[][] {
  const n = (index: number) => noise[index]!;
  return [
    [0, 0, 0, 0, 0, 0, ...halves(address)],
    [0, 0, 0, 0, 0, 0xffff, ...halves(address)],
    [0, 0, 0, 0, 0xffff, 0, ...halves(address)],
    [0x64, 0xff9b, 0, 0, 0, 0, ...halves(address)],
    [0x2002, ...halves(address), n(0), n(1), n(2), n(3), n(4)],
    [0x2001, 0, ...halves(address), n(0), n(1), ...halves(other, true)],
    [0x2001, 0, ...halves(other), n(0), n(1), ...halves(address, true)],
  ];
}

interface Writing {
  readonly compress: boolean;
  readonly dottedTail: boolean;
  readonly pad: boolean;
  readonly upper: boolean;
}
const WRITINGS: readonly Writing[] = [false, true].flatMap((compress) =>
  [false, true].flatMap((dottedTail) =>
    [false, true].flatMap((pad) => [false, true].map((upper) => ({ compress, dottedTail, pad, upper }))),
  ),
);

/** An IPv6 address as text; `pick` chooses which run of zero groups `::` replaces. */
function writeIpv6(groups: readonly number[], writing: Writing, pick: number): string {
  const head = groups
    .slice(0, writing.dottedTail ? 6 : 8)
    .map((group) => group.toString(16).padStart(writing.pad ? 4 : 1, '0'));
  const tail = writing.dottedTail
    ? [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.')
    : undefined;
  const runs: [number, number][] = [];
  for (let start = 0; start < head.length; start++) {
    for (let end = start + 1; end <= head.length && groups[end - 1] === 0; end++) runs.push([start, end]);
  }
  const run = writing.compress && runs.length > 0 ? runs[pick % runs.length] : undefined;
  let text: string;
  if (run) {
    const after = head.slice(run[1]).join(':');
    text = `${head.slice(0, run[0]).join(':')}::${after}${tail === undefined ? '' : after === '' ? tail : `:${tail}`}`;
  } else {
    text = [...head, ...(tail === undefined ? [] : [tail])].join(':');
  }
  return writing.upper ? text.toUpperCase() : text;
}

/** The catalogue code a write-time check refuses with, or undefined when it passes. */
function refusal(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
}

const radixes = fc.array(fc.constantFrom<Radix>('dec', 'oct', 'hex'), { minLength: 4, maxLength: 4 });
const noise = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 5, maxLength: 5 });
const port = fc.integer({ min: 1, max: 65_535 });

/**
 * The spellings the guard judges other than expected, each with what the DNS-time check and
 * the write-time checks said (collected, then compared once: cheaper than an expect each).
 */
function misjudged(texts: readonly string[], refused: boolean, checks: (text: string) => (() => unknown)[]): string[] {
  const expected = refused ? '30-1130' : undefined;
  return texts.flatMap((text) => {
    const dnsTime = isForbiddenAddress(text);
    const writeTime = checks(text).map(refusal);
    return dnsTime === refused && writeTime.every((code) => code === expected)
      ? []
      : [`${text}: ${String(dnsTime)} ${writeTime.join(' ')}`];
  });
}

const ipv4Checks = (portNumber: number) => (spelling: string) => [
  () => serviceUrl(`https://${spelling}:${portNumber}/bucket`, 'auth.endpoint'),
  () => serviceHost(spelling, 'auth.host'),
];
const ipv6Checks = (text: string) => [() => serviceUrl(`https://[${text}]/bucket`, 'auth.endpoint')];
const ipv6Texts = (forms: readonly number[][], pick: number) =>
  forms.flatMap((groups) => WRITINGS.map((writing) => writeIpv6(groups, writing, pick)));

describe('outbound guard: generated spellings', () => {
  it('refuses a forbidden IPv4 address in every IPv4 notation', () => {
    fc.assert(
      fc.property(forbiddenIpv4, radixes, fc.boolean(), port, (address, chosen, upper, portNumber) => {
        expect(misjudged(ipv4Spellings(address, chosen, upper), true, ipv4Checks(portNumber))).toEqual([]);
      }),
      { numRuns: IPV4_RUNS },
    );
  });

  it('refuses every IPv6 form that carries or reaches a forbidden IPv4 address, however written', () => {
    fc.assert(
      fc.property(forbiddenIpv4, publicIpv4, noise, fc.nat(), (address, other, free, pick) => {
        const localNat64 = [0x64, 0xff9b, 1, ...free, ...halves(other)];
        expect(misjudged(ipv6Texts([...carriers(address, other, free), localNat64], pick), true, ipv6Checks)).toEqual(
          [],
        );
      }),
      { numRuns: IPV6_RUNS },
    );
  });

  it('allows a public IPv4 address in every notation and in every IPv6 form that carries it', () => {
    fc.assert(
      fc.property(
        publicIpv4,
        publicIpv4,
        radixes,
        fc.boolean(),
        noise,
        fc.nat(),
        port,
        (address, other, chosen, upper, free, pick, portNumber) => {
          expect(misjudged(ipv4Spellings(address, chosen, upper), false, ipv4Checks(portNumber))).toEqual([]);
          expect(misjudged(ipv6Texts(carriers(address, other, free), pick), false, ipv6Checks)).toEqual([]);
        },
      ),
      { numRuns: IPV6_RUNS },
    );
  });

  it('allows global unicast IPv6 addresses, however written', () => {
    const allocated = fc
      .constantFrom(0x2400, 0x2600, 0x2a00, 0x2c00)
      .chain((block) => fc.integer({ min: block, max: block + 0xf }));
    fc.assert(
      fc.property(
        allocated,
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 7, maxLength: 7 }),
        fc.nat(),
        (first, rest, pick) => {
          expect(misjudged(ipv6Texts([[first, ...rest]], pick), false, ipv6Checks)).toEqual([]);
        },
      ),
      { numRuns: IPV4_RUNS },
    );
  });
});
