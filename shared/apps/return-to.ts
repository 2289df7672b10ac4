import { AppError } from '../errors/app-error';

/**
 * `return_to` of an app session (docs/apps.md): a same-origin relative path only, 80-8028
 * otherwise. A value is checked as sent and at every level of percent-decoding, since a later
 * reader may decode it once more: a path that only decodes to `//host` or `/\host` is refused too.
 */

/** Decodings tried before a value that keeps changing is refused. */
const MAX_DECODINGS = 4;
/** An origin no path can name: what a relative path resolves against to show it stays on it. */
const PROBE_ORIGIN = 'https://origin.invalid';

function refused(reason: string): AppError {
  return new AppError('80-8028', { extraDetails: { return_to: reason } });
}

/** `raw`: the value as sent, where white space is refused too (an encoded one, %20, is a path's own). */
function checkSpelling(path: string, raw: boolean): void {
  if (!path.startsWith('/')) throw refused('must start with a single /');
  if (path.startsWith('//')) throw refused('must not be protocol-relative (//)');
  if (path.includes('\\')) throw refused('must not contain a backslash');
  // Browsers drop tabs and line breaks inside URLs, and trim spaces and controls around them.
  if (raw && /[\u0000-\u0020\u007f-\u009f\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/.test(path))
    throw refused('must not contain white space or control characters');
  if (new URL(path, PROBE_ORIGIN).origin !== PROBE_ORIGIN) throw refused('must stay on this origin');
}

/** The value, when it is a same-origin relative path at every level of decoding; 80-8028 otherwise. */
export function checkReturnTo(value: string): string {
  let current = value;
  for (let decodings = 0; ; decodings += 1) {
    checkSpelling(current, decodings === 0);
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      throw refused('must be validly percent-encoded');
    }
    if (decoded === current) return value;
    if (decodings >= MAX_DECODINGS) throw refused('must not be encoded over and over');
    current = decoded;
  }
}
