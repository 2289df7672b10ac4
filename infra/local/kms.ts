/**
 * Local KMS: the parts of the KMS JSON API the service uses (GenerateDataKey, Encrypt,
 * Decrypt, Sign, GetPublicKey), over the same protocol, so functions run their real
 * @aws-sdk/client-kms code against it. Key material lives in a key file under the twin's data
 * folder (or in memory for tests) and never leaves this process except as KMS would hand it
 * out (data keys, public keys).
 */
import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
  sign,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { JsonProtocolError, startJsonProtocolServer, type JsonOperation } from './json-protocol';

interface KeyMaterial {
  readonly spec: 'SYMMETRIC_DEFAULT' | 'ECC_NIST_P256';
  /** base64 AES-256 key, or the PKCS#8 PEM of the EC private key. */
  readonly material: string;
}

interface KeyFile {
  readonly keys: Record<string, KeyMaterial>;
  readonly aliases: Record<string, string>;
}

export interface LocalKms {
  readonly endpoint: string;
  /** Alias of the symmetric key for envelope encryption. */
  readonly dataKeyId: string;
  /** Alias of the ECC_NIST_P256 key that signs access tokens. */
  readonly signingKeyId: string;
  close(): Promise<void>;
}

/** The data key's alias: the same on every start, so a script may name it (infra/scripts/stack.ts). */
export const DATA_ALIAS = 'alias/dps-local-data';
const SIGNING_ALIAS = 'alias/dps-local-signing';
const ACCOUNT_ARN = 'arn:aws:kms:us-east-1:000000000000';
const MAGIC = Buffer.from('DPK1');

function newKeyFile(): KeyFile {
  const dataKey = randomUUID();
  const signingKey = randomUUID();
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    keys: {
      [dataKey]: { spec: 'SYMMETRIC_DEFAULT', material: randomBytes(32).toString('base64') },
      [signingKey]: { spec: 'ECC_NIST_P256', material: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() },
    },
    aliases: { [DATA_ALIAS]: dataKey, [SIGNING_ALIAS]: signingKey },
  };
}

function loadKeyFile(path: string | undefined): KeyFile {
  if (!path) return newKeyFile();
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as KeyFile;
  const created = newKeyFile();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(created, null, 2), { mode: 0o600 });
  return created;
}

function additionalData(context: unknown): Buffer {
  const entries = Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) => a.localeCompare(b));
  return Buffer.from(JSON.stringify(entries));
}

export async function startLocalKms(options: { keyFile?: string; port?: number } = {}): Promise<LocalKms> {
  const file = loadKeyFile(options.keyFile);

  const resolve = (keyId: unknown): { id: string; key: KeyMaterial } => {
    const raw = String(keyId ?? '');
    const alias = raw.includes(':alias/') ? raw.slice(raw.indexOf(':alias/') + 1) : raw;
    const id = file.aliases[alias] ?? (raw.includes(':key/') ? raw.slice(raw.indexOf(':key/') + 5) : raw);
    const key = file.keys[id];
    if (!key) throw new JsonProtocolError('NotFoundException', `Key '${raw}' does not exist`);
    return { id, key };
  };
  const arn = (id: string) => `${ACCOUNT_ARN}:key/${id}`;

  const symmetric = (keyId: unknown) => {
    const resolved = resolve(keyId);
    if (resolved.key.spec !== 'SYMMETRIC_DEFAULT')
      throw new JsonProtocolError('InvalidKeyUsageException', 'key is not a symmetric encryption key');
    return { id: resolved.id, material: Buffer.from(resolved.key.material, 'base64') };
  };

  const encrypt = (keyId: unknown, plaintext: Buffer, context: unknown): Buffer => {
    const { id, material } = symmetric(keyId);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', material, iv);
    cipher.setAAD(additionalData(context));
    const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const idBytes = Buffer.from(id);
    return Buffer.concat([MAGIC, Buffer.from([idBytes.length]), idBytes, iv, cipher.getAuthTag(), data]);
  };

  const decrypt = (blob: Buffer, context: unknown): { id: string; plaintext: Buffer } => {
    try {
      if (!blob.subarray(0, 4).equals(MAGIC)) throw new Error('not a local KMS ciphertext');
      const idLength = blob[4]!;
      const id = blob.subarray(5, 5 + idLength).toString();
      const rest = blob.subarray(5 + idLength);
      const { material } = symmetric(id);
      const decipher = createDecipheriv('aes-256-gcm', material, rest.subarray(0, 12));
      decipher.setAAD(additionalData(context));
      decipher.setAuthTag(rest.subarray(12, 28));
      return { id, plaintext: Buffer.concat([decipher.update(rest.subarray(28)), decipher.final()]) };
    } catch {
      throw new JsonProtocolError('InvalidCiphertextException', 'The ciphertext or its encryption context is invalid');
    }
  };

  const signingKey = (keyId: unknown) => {
    const resolved = resolve(keyId);
    if (resolved.key.spec !== 'ECC_NIST_P256')
      throw new JsonProtocolError('InvalidKeyUsageException', 'key is not a signing key');
    return { id: resolved.id, privateKey: createPrivateKey(resolved.key.material) };
  };

  const operations: Record<string, JsonOperation> = {
    GenerateDataKey: (input) => {
      const size =
        input.KeySpec === 'AES_128' ? 16 : input.KeySpec === 'AES_256' ? 32 : Number(input.NumberOfBytes ?? 32);
      const plaintext = randomBytes(size);
      const blob = encrypt(input.KeyId, plaintext, input.EncryptionContext);
      return {
        KeyId: arn(symmetric(input.KeyId).id),
        Plaintext: plaintext.toString('base64'),
        CiphertextBlob: blob.toString('base64'),
      };
    },
    Encrypt: (input) => {
      const blob = encrypt(input.KeyId, Buffer.from(String(input.Plaintext), 'base64'), input.EncryptionContext);
      return {
        KeyId: arn(symmetric(input.KeyId).id),
        CiphertextBlob: blob.toString('base64'),
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      };
    },
    Decrypt: (input) => {
      const { id, plaintext } = decrypt(Buffer.from(String(input.CiphertextBlob), 'base64'), input.EncryptionContext);
      return { KeyId: arn(id), Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
    Sign: (input) => {
      if (input.SigningAlgorithm !== 'ECDSA_SHA_256')
        throw new JsonProtocolError('UnsupportedOperationException', 'only ECDSA_SHA_256 is supported');
      const { id, privateKey } = signingKey(input.KeyId);
      const message = Buffer.from(String(input.Message), 'base64');
      const signature =
        input.MessageType === 'DIGEST'
          ? sign(null, message, { key: privateKey, dsaEncoding: 'der' })
          : sign('sha256', message, { key: privateKey, dsaEncoding: 'der' });
      return { KeyId: arn(id), Signature: signature.toString('base64'), SigningAlgorithm: 'ECDSA_SHA_256' };
    },
    GetPublicKey: (input) => {
      const { id, privateKey } = signingKey(input.KeyId);
      const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
      return {
        KeyId: arn(id),
        PublicKey: publicKey.toString('base64'),
        KeySpec: 'ECC_NIST_P256',
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: ['ECDSA_SHA_256'],
      };
    },
  };

  const server = await startJsonProtocolServer({
    name: 'KMS',
    targetPrefix: 'TrentService',
    jsonVersion: '1.1',
    operations,
    internalErrorType: 'KMSInternalException',
    port: options.port,
  });
  return { endpoint: server.endpoint, dataKeyId: DATA_ALIAS, signingKeyId: SIGNING_ALIAS, close: () => server.close() };
}
