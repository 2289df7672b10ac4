import { generateKeyPairSync, type KeyExportOptions, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors/app-error';
import { checkRsaPrivateKey } from '../../../../shared/connectors/pricing/private-key';

const rsa2048 = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsa1024 = generateKeyPairSync('rsa', { modulusLength: 1024 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });

const pem = (key: KeyObject, options: Omit<KeyExportOptions<'pem'>, 'format'>): string =>
  key.export({ ...options, format: 'pem' }).toString();

function refused(candidate: string): void {
  try {
    checkRsaPrivateKey(candidate);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('30-4101');
    expect((error as AppError).status).toBe(400);
    expect((error as AppError).message).toBe('Private key invalid; check format and content');
    return;
  }
  throw new Error('expected the key to be refused');
}

describe('checkRsaPrivateKey', () => {
  it('accepts an RSA 2048 key in PKCS#8 PEM', () => {
    expect(() => checkRsaPrivateKey(pem(rsa2048.privateKey, { type: 'pkcs8' }))).not.toThrow();
  });

  it('accepts an RSA 2048 key in PKCS#1 PEM', () => {
    const pkcs1 = pem(rsa2048.privateKey, { type: 'pkcs1' });
    expect(pkcs1).toContain('-----BEGIN RSA PRIVATE KEY-----');
    expect(() => checkRsaPrivateKey(pkcs1)).not.toThrow();
  });

  it('refuses an empty key', () => {
    refused('');
  });

  it('refuses text that is not PEM', () => {
    refused('not a key at all');
    refused('-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n');
    refused(pem(rsa2048.privateKey, { type: 'pkcs8' }).replace(/[A-Za-z0-9+/]{64}/, 'A'.repeat(64)));
  });

  it('refuses a key in DER bytes rendered as text', () => {
    refused((rsa2048.privateKey.export({ type: 'pkcs8', format: 'der' }) as Buffer).toString('base64'));
  });

  it('refuses an EC key', () => {
    refused(pem(ec.privateKey, { type: 'pkcs8' }));
    refused(pem(ec.privateKey, { type: 'sec1' }));
  });

  it('refuses an RSA key shorter than 2048 bits', () => {
    refused(pem(rsa1024.privateKey, { type: 'pkcs8' }));
  });

  it('refuses an encrypted key', () => {
    const encrypted = pem(rsa2048.privateKey, { type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'correct horse' });
    expect(encrypted).toContain('ENCRYPTED PRIVATE KEY');
    refused(encrypted);
  });

  it('refuses a public key', () => {
    refused(pem(rsa2048.publicKey, { type: 'spki' }));
  });
});
