import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { assertDestinationAllowed } from '../outbound-guard';
import { guardedAgent } from '../outbound-http';

/**
 * Opens a pre-signed file URL for streaming, through the outbound guard: a shared file may
 * live in any cloud store (S3, GCS, Azure, the server itself), so this is plain HTTPS with no
 * store-specific code. `timeoutMs` bounds the wait for the answer's head; the body is bounded
 * by the download's idle guard (bucket-download.ts).
 */
export function openSharedFile(url: URL, signal: AbortSignal, timeoutMs: number): Promise<IncomingMessage> {
  assertDestinationAllowed(url);
  signal.throwIfAborted();
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = send(url, { method: 'GET', agent: guardedAgent(url), signal });
    const timer = setTimeout(
      () => outgoing.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError' })),
      timeoutMs,
    );
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    outgoing.on('response', (incoming) => {
      clearTimeout(timer);
      resolve(incoming);
    });
    outgoing.end();
  });
}

/** Drains an answer that is not read, so that its socket is freed. */
export async function discard(incoming: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let bytes = 0;
  for await (const part of incoming as AsyncIterable<Buffer>) {
    // An error page is small; the rest of a large one is not worth keeping.
    if (bytes < 4096) parts.push(part);
    bytes += part.length;
  }
  return Buffer.concat(parts).toString('utf8').slice(0, 4096);
}
