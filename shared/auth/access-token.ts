import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import { errors as joseErrors, jwtVerify } from 'jose';
import * as z from 'zod';
import { kmsClient } from '../aws/clients';
import { perStores } from '../aws/per-stores';
import { config } from '../config';
import { TENANT_ID_PATTERN } from '../db/keys';
import { PERMISSIONS } from './permissions';
import type { Principal } from './principal';

/**
 * Short-lived ES256 access tokens. The private key lives in KMS (asymmetric ECC_NIST_P256
 * key, SIGN_VERIFY) and never reaches a function: issuing asks KMS to sign, verifying uses
 * the public key, fetched once per warm function.
 */
const Claims = z.object({
  sub: z.string().min(1),
  exp: z.number(),
  tid: z.string().regex(TENANT_ID_PATTERN),
  name: z.string().nullable().optional(),
  roles: z.array(z.string()),
  perms: z.array(z.string()),
  /** The app context of an SDK token (docs/apps.md): a bundle id. */
  app: z.int().min(1).optional(),
  /** The session context of an SDK token: an app session id. */
  sid: z.string().min(1).optional(),
});

export interface AccessToken {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
}

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export async function issueAccessToken(principal: Principal, now = new Date()): Promise<AccessToken> {
  const keyId = config.signingKeyId;
  const issuedAt = Math.floor(now.getTime() / 1000);
  const ttl = config.tokenTtlSeconds;
  const header = { alg: 'ES256', typ: 'JWT', kid: keyId };
  const payload = {
    iss: config.tokenIssuer,
    aud: config.tokenAudience,
    sub: principal.clientId,
    tid: principal.tenantId,
    name: principal.name,
    roles: principal.roles,
    perms: principal.permissions,
    ...(principal.appBundleId === undefined ? {} : { app: principal.appBundleId }),
    ...(principal.sessionId === undefined ? {} : { sid: principal.sessionId }),
    iat: issuedAt,
    nbf: issuedAt,
    exp: issuedAt + ttl,
    jti: randomUUID(),
  };
  const signingInput = `${encode(header)}.${encode(payload)}`;
  const { Signature } = await kmsClient().send(
    new SignCommand({
      KeyId: keyId,
      Message: Buffer.from(signingInput),
      MessageType: 'RAW',
      SigningAlgorithm: 'ECDSA_SHA_256',
    }),
  );
  if (!Signature) throw new Error('KMS returned no signature');
  return {
    access_token: `${signingInput}.${derToJose(Buffer.from(Signature)).toString('base64url')}`,
    token_type: 'Bearer',
    expires_in: ttl,
  };
}

/**
 * Why a presented token was not accepted; never more specific than the caller needs.
 * `verification_unavailable` means the verifier itself failed (KMS), which is our fault.
 */
export type TokenRejection =
  | 'missing_token'
  | 'invalid_token'
  | 'expired_token'
  /** Its client was deleted or expired since the token was issued (shared/identity/revocation.ts). */
  | 'revoked_token'
  | 'verification_unavailable';

export class TokenRejected extends Error {
  constructor(readonly reason: TokenRejection) {
    super(reason);
  }
}

/** By key id, which may be an alias: the same alias in another key store names another key. */
const publicKeysOfStores = perStores(() => new Map<string, Promise<KeyObject>>());

function publicKey(keyId: string): Promise<KeyObject> {
  const publicKeys = publicKeysOfStores();
  let key = publicKeys.get(keyId);
  if (!key) {
    key = kmsClient()
      .send(new GetPublicKeyCommand({ KeyId: keyId }))
      .then(({ PublicKey }) => {
        if (!PublicKey) throw new Error('KMS returned no public key');
        return createPublicKey({ key: Buffer.from(PublicKey), format: 'der', type: 'spki' });
      });
    key.catch(() => publicKeys.delete(keyId));
    publicKeys.set(keyId, key);
  }
  return key;
}

/**
 * Tokens this warm function has verified, with their expiry: a token is immutable, so a repeat
 * needs only its expiry checked. Bounded; the oldest entry goes first.
 */
const VERIFIED_CACHE_SIZE = 1000;
const verified = new Map<string, { principal: Principal; expiresAt: number }>();

export async function verifyAccessToken(token: string, now = Date.now()): Promise<Principal> {
  const known = verified.get(token);
  if (known) {
    if (known.expiresAt * 1000 <= now) {
      verified.delete(token);
      throw new TokenRejected('expired_token');
    }
    return known.principal;
  }
  const { principal, expiresAt } = await verifySignedToken(token);
  if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
  verified.set(token, { principal, expiresAt });
  return principal;
}

async function verifySignedToken(token: string): Promise<{ principal: Principal; expiresAt: number }> {
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, await publicKey(config.signingKeyId), {
      algorithms: ['ES256'],
      issuer: config.tokenIssuer,
      audience: config.tokenAudience,
      requiredClaims: ['sub', 'exp', 'iat'],
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new TokenRejected('expired_token');
    if (error instanceof joseErrors.JOSEError) throw new TokenRejected('invalid_token');
    throw error;
  }
  const claims = Claims.safeParse(payload);
  if (!claims.success) throw new TokenRejected('invalid_token');
  const known = new Set<string>(PERMISSIONS);
  return {
    principal: {
      tenantId: claims.data.tid,
      clientId: claims.data.sub,
      name: claims.data.name ?? null,
      roles: claims.data.roles,
      permissions: claims.data.perms.filter((permission): permission is Principal['permissions'][number] =>
        known.has(permission),
      ),
      ...(claims.data.app === undefined ? {} : { appBundleId: claims.data.app }),
      ...(claims.data.sid === undefined ? {} : { sessionId: claims.data.sid }),
    },
    expiresAt: claims.data.exp,
  };
}

/**
 * KMS returns an ASN.1 DER ECDSA signature, SEQUENCE { INTEGER r, INTEGER s }; JWS wants
 * r || s, 32 bytes each (RFC 7518 §3.4). Anything but exactly that structure is refused.
 */
export function derToJose(der: Buffer): Buffer {
  const fail = (): never => {
    throw new Error('malformed DER ECDSA signature');
  };
  // Short-form lengths only: a P-256 signature is at most 72 bytes.
  if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2) fail();
  let offset = 2;
  const integer = (): Buffer => {
    if (der[offset] !== 0x02) fail();
    const length = der[offset + 1] ?? fail();
    if (length < 1 || length > 33 || offset + 2 + length > der.length) fail();
    const value = der.subarray(offset + 2, offset + 2 + length);
    offset += 2 + length;
    const significant = value.subarray(value.length > 32 ? value.length - 32 : 0);
    if (value.length > 32 && value[0] !== 0) fail();
    return Buffer.concat([Buffer.alloc(32 - significant.length), significant]);
  };
  const r = integer();
  const s = integer();
  if (offset !== der.length) fail();
  return Buffer.concat([r, s]);
}
