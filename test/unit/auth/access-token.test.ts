import { generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derToJose } from '../../../shared/auth/access-token';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

/** ASN.1 DER of ECDSA-Sig-Value from r || s (32 bytes each): minimal positive INTEGERs. */
function joseToDer(jose: Buffer): Buffer {
  const integer = (bytes: Buffer): Buffer => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
    let value = bytes.subarray(start);
    if (value[0]! & 0x80) value = Buffer.concat([Buffer.from([0]), value]);
    return Buffer.concat([Buffer.from([0x02, value.length]), value]);
  };
  const body = Buffer.concat([integer(jose.subarray(0, 32)), integer(jose.subarray(32))]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

describe('derToJose', () => {
  it('turns real DER signatures into r || s that verify as JWS (IEEE P1363) signatures', () => {
    for (let index = 0; index < 200; index += 1) {
      const message = randomBytes(1 + (index % 64));
      const der = sign('sha256', message, { key: privateKey, dsaEncoding: 'der' });
      const jose = derToJose(der);
      expect(jose).toHaveLength(64);
      expect(verify('sha256', message, { key: publicKey, dsaEncoding: 'ieee-p1363' }, jose)).toBe(true);
      expect(verify('sha256', randomBytes(8), { key: publicKey, dsaEncoding: 'ieee-p1363' }, jose)).toBe(false);
    }
  });

  it('gives back the P1363 signature node:crypto produced, from its DER form', () => {
    for (let index = 0; index < 200; index += 1) {
      const message = randomBytes(32);
      const p1363 = sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      const der = joseToDer(p1363);
      // The DER form is the one node:crypto accepts, so the encoder above is right.
      expect(verify('sha256', message, { key: publicKey, dsaEncoding: 'der' }, der)).toBe(true);
      expect(derToJose(der).equals(p1363)).toBe(true);
    }
  });

  it('round-trips any r and s, including short integers and high bits that need a zero byte', () => {
    const half = fc.oneof(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc
        .uint8Array({ minLength: 1, maxLength: 31 })
        .map((tail) => Uint8Array.from([...new Uint8Array(32 - tail.length), ...tail])),
      fc.constant(new Uint8Array(32)),
      fc.constant(new Uint8Array(32).fill(0xff)),
    );
    fc.assert(
      fc.property(half, half, (r, s) => {
        const jose = Buffer.concat([r, s]);
        expect(derToJose(joseToDer(jose)).equals(jose)).toBe(true);
      }),
      { numRuns: 500, seed: 7518 },
    );
  });

  it('refuses a length in long form below 128: that is BER, not the DER KMS returns', () => {
    const jose = Buffer.concat([Buffer.alloc(32, 0x81), Buffer.alloc(32, 0x82)]);
    const der = joseToDer(jose);
    const longForm = Buffer.concat([Buffer.from([0x30, 0x81, der[1]!]), der.subarray(2)]);
    expect(() => derToJose(longForm)).toThrow('malformed DER ECDSA signature');
  });

  it('refuses truncated and over-long signatures', () => {
    for (const hex of [
      '30060201050201',
      '30060201050201060000',
      `3044022${'0'}${'01'.repeat(32)}020a${'02'.repeat(10)}`,
    ]) {
      expect(() => derToJose(Buffer.from(hex, 'hex')), hex).toThrow('malformed DER ECDSA signature');
    }
  });

  it('throws on malformed DER', () => {
    const good = joseToDer(Buffer.concat([Buffer.alloc(32, 1), Buffer.alloc(32, 2)]));
    const malformed: Buffer[] = [
      Buffer.alloc(0),
      Buffer.from([0x30]),
      Buffer.from([0x31, ...good.subarray(1)]),
      Buffer.from([0x30, good[1]!, 0x03, ...good.subarray(3)]),
      // 33-byte integer whose extra byte is not a sign byte
      Buffer.from([0x30, 0x45, 0x02, 0x21, 0x01, ...Buffer.alloc(32, 1), 0x02, 0x20, ...Buffer.alloc(32, 2)]),
      // 34-byte integer
      Buffer.from([0x30, 0x46, 0x02, 0x22, 0x00, 0x00, ...Buffer.alloc(32, 1), 0x02, 0x20, ...Buffer.alloc(32, 2)]),
      // second integer missing
      Buffer.from([0x30, 0x22, 0x02, 0x20, ...Buffer.alloc(32, 1)]),
    ];
    for (const der of malformed) {
      expect(() => derToJose(der), der.toString('hex')).toThrow('malformed DER ECDSA signature');
    }
  });
});
