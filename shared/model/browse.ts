import * as z from 'zod';
import { storableKey } from './object-key';
import { visibleAscii, withoutControls } from './text-rules';

/**
 * Browsing a bucket connection one folder level at a time (spec 2.5: path in; folders,
 * files and metadata out). The spec does not show the item shapes; these are ours.
 */
export const BrowseRequest = z
  .strictObject({
    // A bucket name (at most 63), a slash and a key prefix (at most 1024); the path rules
    // themselves (30-1113, 30-1115) are checked with the connection's bucket rules.
    path: storableKey(withoutControls(z.string().trim().min(1).max(1088)), { bucketFirst: true }).describe(
      '"<bucket>" or "<bucket>/<folder>/"; inside the connection\'s path_restriction',
    ),
    // Opaque to us; S3 hands out base64 text. Anything else would only reach the store's client.
    continuation_token: visibleAscii(z.string().min(1).max(4096))
      .optional()
      .describe('metadata.next_continuation_token of the previous page, to read the next one'),
    max_items: z
      .int()
      .min(1)
      .max(1000)
      .default(1000)
      .describe('Most folders and files in one page (they count together)'),
  })
  .meta({ id: 'BrowseRequest' });

export const BucketFolder = z
  .object({
    name: z.string().describe('The folder name, without its trailing slash'),
    path: z.string().describe('"<bucket>/<folder>/": browse it next, or use it as a bucket data source path'),
  })
  .meta({ id: 'BucketFolder' });

export const BucketFile = z
  .object({
    name: z.string().describe('The file name inside the folder'),
    path: z.string().describe('"<bucket>/<key>", usable as a bucket data source path'),
    size: z.int().min(0).nullable().describe('Bytes; null when the store does not say'),
    last_modified: z.iso.datetime().nullable().describe('null when the store does not say'),
  })
  .meta({ id: 'BucketFile' });

export const BucketObjectMetadata = z
  .object({
    bucket: z.string(),
    prefix: z.string().describe('"" for the bucket root, otherwise the folder prefix ending in "/"'),
    path: z.string().describe('The browsed location, normalised: "<bucket>/<prefix>"'),
    truncated: z.boolean().describe('More folders or files follow; send next_continuation_token for them'),
    next_continuation_token: z.string().nullable(),
    key_count: z.int().min(0).describe('Folders and files in this page'),
  })
  .meta({ id: 'BucketObjectMetadata' });

export const BrowseResponse = z
  .object({ folders: z.array(BucketFolder), files: z.array(BucketFile), metadata: BucketObjectMetadata })
  .meta({ id: 'BrowseResponse' });

export type BrowseResult = z.input<typeof BrowseResponse>;
