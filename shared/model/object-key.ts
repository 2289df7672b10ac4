import type * as z from 'zod';

/**
 * Bounds of an object key a user chooses (an export's key, a target's folder, a data source's
 * path): what S3 stores, and what a file system can hold when the key becomes a path, as it
 * does in the local twin's S3 and in a worker's scratch folder. Refused at the request schema
 * (10-1400 naming the field) so that no such key reaches a store.
 */

/** S3's bound on a whole key: 1024 bytes of UTF-8 (KeyTooLongError beyond). */
export const MAX_OBJECT_KEY_BYTES = 1024;
/** A file system's bound on one path segment (ext4, APFS, NTFS): 255 bytes. */
export const MAX_KEY_SEGMENT_BYTES = 255;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Why `key` cannot be stored, for a person; undefined when it can. `/` separates its segments. */
export function objectKeyProblem(key: string): string | undefined {
  const bytes = utf8Bytes(key);
  if (bytes > MAX_OBJECT_KEY_BYTES) {
    return `must be at most ${MAX_OBJECT_KEY_BYTES} bytes in UTF-8 (S3's limit on a key), not ${bytes}`;
  }
  const longest = Math.max(...key.split('/').map(utf8Bytes));
  if (longest > MAX_KEY_SEGMENT_BYTES) {
    return `must not have a segment between slashes longer than ${MAX_KEY_SEGMENT_BYTES} bytes in UTF-8 (a file name's limit), not ${longest}`;
  }
  return undefined;
}

/**
 * `schema` refusing text whose key part cannot be stored: the text after the first slash when
 * `bucketFirst` (a "<bucket>/<key>" path), the whole text otherwise.
 */
export const storableKey = <T extends z.ZodString>(schema: T, { bucketFirst }: { bucketFirst: boolean }) =>
  schema.superRefine((text, context) => {
    const path = text.replace(/^\/+/, '');
    const key = bucketFirst ? path.slice(path.indexOf('/') + 1 || path.length) : text;
    const problem = objectKeyProblem(key);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem, input: text });
  });
