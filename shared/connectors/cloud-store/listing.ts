import type { Bucket } from '@google-cloud/storage';
import * as z from 'zod';

/**
 * One page of a bucket's objects (JSON API objects.list), read from the SDK's raw answer:
 * with a delimiter, GCS reports the folders of a level as `prefixes`, and maxResults counts
 * objects and prefixes together.
 */
const ObjectPage = z.object({
  items: z
    .array(z.object({ name: z.string(), size: z.string().optional(), updated: z.string().optional() }))
    .default([]),
  prefixes: z.array(z.string()).default([]),
  nextPageToken: z.string().optional(),
});
export type ObjectPage = z.output<typeof ObjectPage>;

export interface PageRequest {
  readonly prefix: string;
  readonly delimiter?: string;
  readonly maxResults?: number;
  readonly pageToken?: string;
}

/** One page; a stop through `signal` ends the wait at once (the SDK's call takes no signal and ends on its own timeout). */
export async function listPage(bucket: Bucket, request: PageRequest, signal?: AbortSignal): Promise<ObjectPage> {
  const listing = bucket.getFiles({
    autoPaginate: false,
    ...(request.prefix === '' ? {} : { prefix: request.prefix }),
    ...(request.delimiter === undefined ? {} : { delimiter: request.delimiter }),
    ...(request.maxResults === undefined ? {} : { maxResults: request.maxResults }),
    ...(request.pageToken === undefined ? {} : { pageToken: request.pageToken }),
  });
  const [, , answer] = await (signal ? untilAborted(listing, signal) : listing);
  return ObjectPage.parse(answer ?? {});
}

/** Settles with `call`, or rejects with the signal's reason as soon as it aborts. */
export function untilAborted<T>(call: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    call.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
