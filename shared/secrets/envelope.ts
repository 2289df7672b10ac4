import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import * as z from 'zod';
import { kmsClient } from '../aws/clients';
import { config } from '../config';

/**
 * Envelope encryption of a secret: a fresh AES-256 data key from KMS per sealed value,
 * AES-256-GCM over the value, and only the KMS-encrypted data key stored beside it. The
 * encryption context (tenant, entity, id) is bound both into KMS and into GCM's additional
 * data, so a sealed value copied to another entity or tenant does not open.
 *
 * The schema of a sealed value checks its structure only (what opening needs), never the
 * ciphertext, which only KMS and GCM can judge.
 */
export const SealedSecret = z.object({
  v: z.literal(1),
  /** KMS ciphertext of the data key. */
  key: z.string(),
  iv: z.string(),
  tag: z.string(),
  data: z.string(),
});
export type SealedSecret = z.infer<typeof SealedSecret>;

export type EncryptionContext = Readonly<Record<string, string>>;

function additionalData(context: EncryptionContext): Buffer {
  return Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));
}

export async function seal(plaintext: string, context: EncryptionContext): Promise<SealedSecret> {
  const { Plaintext, CiphertextBlob } = await kmsClient().send(
    new GenerateDataKeyCommand({ KeyId: config.dataKeyId, KeySpec: 'AES_256', EncryptionContext: { ...context } }),
  );
  if (!Plaintext || !CiphertextBlob) throw new Error('KMS returned no data key');
  const dataKey = Buffer.from(Plaintext);
  try {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
    cipher.setAAD(additionalData(context));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      v: 1,
      key: Buffer.from(CiphertextBlob).toString('base64'),
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  } finally {
    dataKey.fill(0);
  }
}

export async function open(sealed: SealedSecret, context: EncryptionContext): Promise<string> {
  const { Plaintext } = await kmsClient().send(
    new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.key, 'base64'), EncryptionContext: { ...context } }),
  );
  if (!Plaintext) throw new Error('KMS returned no plaintext');
  const dataKey = Buffer.from(Plaintext);
  try {
    const decipher = createDecipheriv('aes-256-gcm', dataKey, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(additionalData(context));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  } finally {
    dataKey.fill(0);
  }
}
