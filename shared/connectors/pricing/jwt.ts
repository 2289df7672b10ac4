import { createPrivateKey, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { checkRsaPrivateKey } from './private-key';

/** RFC 7523 §2.2: the client assertion's type, as the token request names it. */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** How long an assertion is valid: RFC 7523 §3 asks for a short life; the token server refuses older. */
const ASSERTION_LIFETIME_S = 300;

export interface AssertionInput {
  readonly clientId: string;
  /** The token URL as configured: the audience the token server checks. */
  readonly tokenUrl: string;
  readonly privateKeyPem: string;
  readonly kid: string;
}

/**
 * A client assertion (RFC 7523 §3): iss = sub = the client, aud = the token URL, a fresh jti,
 * signed RS256 with the connection's key under its kid. A key that is not an unencrypted RSA
 * PEM key of ≥ 2048 bits is 30-4101 before anything is sent.
 */
export async function clientAssertion(input: AssertionInput, now = Date.now()): Promise<string> {
  checkRsaPrivateKey(input.privateKeyPem);
  const key = createPrivateKey({ key: input.privateKeyPem, format: 'pem' });
  const issuedAt = Math.floor(now / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: input.kid })
    .setIssuer(input.clientId)
    .setSubject(input.clientId)
    .setAudience(input.tokenUrl)
    .setJti(randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ASSERTION_LIFETIME_S)
    .sign(key);
}
