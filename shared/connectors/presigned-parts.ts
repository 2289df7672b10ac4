import { createReadStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { config } from '../config';
import { AppError } from '../errors/app-error';
import { serviceUrl } from './endpoint';
import { objectStoreError } from './object-store/errors';
import { outboundRequest } from './outbound-http';

/**
 * Uploads to pre-signed part URLs of a multipart upload another party created (the caller of
 * a multi-part export). Every URL passes the outbound guard when it is read and again when it
 * is called; each PUT is retried a bounded number of times when the store or the network
 * fails transiently, never when the store refuses the request.
 */

/** S3's smallest part, except the last one. */
export const MIN_PART_BYTES = 5 * 2 ** 20;

const ATTEMPTS = 3;
const BACKOFF_MS = 200;
/** Slowest rate a part may travel at before its PUT counts as timed out. */
const MIN_BYTES_PER_SECOND = 2 ** 20;

/** A part URL as the request gives it: absolute https (or an allow-listed http), not a forbidden host (10-1008, 30-1130). */
export function partUrl(raw: string, index: number): URL {
  return serviceUrl(raw, `parts_urls[${index}]`);
}

export interface PartRange {
  readonly partNumber: number;
  readonly start: number;
  readonly length: number;
}

/**
 * Cuts `bytes` into `parts` consecutive ranges where every part but the last holds at least
 * MIN_PART_BYTES (S3's rule) and the last at least one byte. Too few bytes for that many parts
 * is 10-1400 on parts_urls, saying how many bytes the export has and how many it would need.
 */
export function partRanges(bytes: number, parts: number): PartRange[] {
  const size = parts === 1 ? bytes : Math.max(MIN_PART_BYTES, Math.ceil(bytes / parts));
  if (bytes - (parts - 1) * size < 1) {
    const needed = (parts - 1) * MIN_PART_BYTES + 1;
    throw new AppError('10-1400', {
      extraDetails: {
        parts_urls: `too many parts for the export: it has ${bytes} bytes, and ${parts} parts need more than ${needed - 1} (every part but the last at least ${MIN_PART_BYTES} bytes)`,
        cause: `the export has ${bytes} bytes; ${parts} parts need at least ${needed}`,
      },
    });
  }
  return Array.from({ length: parts }, (_, index) => {
    const start = index * size;
    return { partNumber: index + 1, start, length: index === parts - 1 ? bytes - start : size };
  });
}

/** The error code the store put in its XML answer, if any. */
function providerCode(text: string): string | undefined {
  return /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
}

function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown; name?: unknown } | undefined)?.code;
  const name = (error as { name?: unknown } | undefined)?.name;
  return name === 'TimeoutError' || (typeof code === 'string' && /^E[A-Z]+$/.test(code) && code !== 'EANSWERTOOLARGE');
}

/**
 * PUTs one range of a local file to its pre-signed URL and answers the part's ETag. A store
 * that refuses the signature is 30-1109; another refusal is 30-1100 with the provider's code.
 */
export async function putPart(
  rawUrl: string,
  index: number,
  file: string,
  range: PartRange,
  signal: AbortSignal,
): Promise<string> {
  const url = partUrl(rawUrl, index);
  const timeoutMs = config.connectorTimeoutMs + Math.ceil((range.length / MIN_BYTES_PER_SECOND) * 1000);
  let lastFailure: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    if (attempt > 1) await sleep(BACKOFF_MS * 2 ** (attempt - 2), undefined, { signal });
    let answer;
    try {
      answer = await outboundRequest({
        method: 'PUT',
        url,
        timeoutMs,
        signal,
        body: {
          length: range.length,
          open: () => createReadStream(file, { start: range.start, end: range.start + range.length - 1 }),
        },
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (!isTransient(error)) throw objectStoreError(error, undefined);
      lastFailure = error;
      continue;
    }
    const etag = answer.headers.etag;
    if (answer.status === 200 && typeof etag === 'string' && etag !== '') return etag;
    const code = providerCode(answer.text);
    if (answer.status >= 500 || answer.status === 429) {
      lastFailure = Object.assign(new Error(`part ${range.partNumber}: ${answer.status}`), {
        Code: code ?? 'InternalError',
        $metadata: { httpStatusCode: answer.status },
      });
      continue;
    }
    if (code === 'SignatureDoesNotMatch')
      throw new AppError('30-1109', { extraDetails: { part_number: range.partNumber } });
    throw new AppError('30-1100', {
      extraDetails: {
        provider_error: code ?? 'Unknown',
        provider_status: answer.status,
        part_number: range.partNumber,
      },
    });
  }
  throw objectStoreError(lastFailure, undefined);
}

/** A part the store took, and the ETag it answered. */
export interface PutPart {
  readonly partNumber: number;
  readonly eTag: string;
  readonly bytes: number;
}

/** What the owner of a PartUploads hears as the parts travel. */
export interface PartUploadEvents {
  /** A part was taken by the store. */
  readonly onPut: (part: PutPart) => void;
  /** Whether any PUT is in flight: data is expected to keep flowing only then. */
  readonly onBusy: (busy: boolean) => void;
}

/**
 * PUTs parts as they are handed over, at most `concurrency` at once, so that whoever writes
 * them can go on writing the next while the previous ones travel. Each range goes to the URL
 * of its part number (putPart: the outbound guard, bounded retries). The first failure aborts
 * the parts in flight and those still waiting (the job has failed, its parts are of no use),
 * as does `signal` (the job's).
 */
export class PartUploads {
  private readonly waiting: { file: string; range: PartRange }[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly taken: PutPart[] = [];
  private readonly stop = new AbortController();
  private readonly signal: AbortSignal;

  constructor(
    private readonly urls: readonly string[],
    private readonly concurrency: number,
    signal: AbortSignal,
    private readonly events: PartUploadEvents,
  ) {
    this.signal = AbortSignal.any([signal, this.stop.signal]);
  }

  /** Whether a part failed or the work was aborted: nothing more is worth writing. */
  get failed(): boolean {
    return this.signal.aborted;
  }

  /** Queues the PUT of `range` of the local `file`. */
  add(file: string, range: PartRange): void {
    this.waiting.push({ file, range });
    this.pump();
  }

  /** Aborts the parts in flight and those waiting (the work failed elsewhere), and waits for them to stop. */
  async cancel(reason: unknown): Promise<void> {
    if (!this.signal.aborted) this.stop.abort(reason);
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
  }

  /** Waits for every part added: answers them in part order, or throws the first failure. */
  async finish(): Promise<PutPart[]> {
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
    if (this.signal.aborted) throw this.signal.reason;
    return [...this.taken].sort((a, b) => a.partNumber - b.partNumber);
  }

  private pump(): void {
    while (this.inFlight.size < this.concurrency && !this.signal.aborted) {
      const next = this.waiting.shift();
      if (!next) return;
      const { file, range } = next;
      const index = range.partNumber - 1;
      const put: Promise<void> = putPart(this.urls[index]!, index, file, range, this.signal)
        .then(
          (eTag) => {
            const part = { partNumber: range.partNumber, eTag, bytes: range.length };
            this.taken.push(part);
            this.events.onPut(part);
          },
          (error: unknown) => {
            if (!this.signal.aborted) this.stop.abort(error);
          },
        )
        .finally(() => {
          this.inFlight.delete(put);
          if (this.inFlight.size === 0) this.events.onBusy(false);
          this.pump();
        });
      if (this.inFlight.size === 0) this.events.onBusy(true);
      this.inFlight.add(put);
    }
  }
}
