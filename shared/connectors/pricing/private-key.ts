import { createPrivateKey } from 'node:crypto';
import { AppError } from '../../errors/app-error';

/** RFC 7523 client authentication signs with RS256: an unencrypted RSA key of ≥ 2048 bits in PEM. */
export function checkRsaPrivateKey(pem: string): void {
  const invalid = () => new AppError('30-4101');
  if (!pem.includes('-----BEGIN')) throw invalid();
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if ((key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'rsa-pss') || bits < 2048) throw invalid();
  } catch {
    throw invalid();
  }
}
