import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { assertDestinationAllowed, guardedLookup, portOf } from './outbound-guard';

/**
 * HTTP calls a connector makes itself (token endpoints, uploads to pre-signed URLs), through
 * the outbound guard and bounded in time. SDKs that take an agent get one from guardedAgent.
 */

/** A body streamed from a source that can be opened again for a retry (a range of a file). */
export interface OutboundUpload {
  readonly length: number;
  open(): Readable;
}

export interface OutboundRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | OutboundUpload;
  /** Bound of the whole exchange, from connecting to the last byte of the answer. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Largest answer accepted (MAX_ANSWER_BYTES when omitted): a listing of a large table's files is bigger than a token. */
  readonly maxAnswerBytes?: number;
}

export interface OutboundResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** Answers larger than this are cut off: a token answer is a few kilobytes. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * An agent for one destination whose connections resolve through the guarded lookup, so a
 * name cannot resolve to a forbidden address when used. No keep-alive: every agent serves
 * one connector call.
 */
export function guardedAgent(url: URL): HttpAgent {
  const lookup = guardedLookup(portOf(url));
  return url.protocol === 'http:' ? new HttpAgent({ lookup }) : new HttpsAgent({ lookup });
}

/** An error named TimeoutError, as AbortSignal.timeout and the SDKs name theirs. */
function timeoutError(timeoutMs: number): Error {
  return Object.assign(new Error(`no complete answer within ${timeoutMs} ms`), { name: 'TimeoutError' });
}

/**
 * One request through the outbound guard (30-1130 for a forbidden address literal; an
 * OutboundDestinationBlocked error when DNS resolves to one). Fails with a TimeoutError when
 * the whole exchange takes longer than `timeoutMs`; network failures keep their errno codes.
 */
export async function outboundRequest(request: OutboundRequest): Promise<OutboundResponse> {
  assertDestinationAllowed(request.url);
  request.signal?.throwIfAborted();
  const send = request.url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: { error: unknown } | { response: OutboundResponse }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      if ('error' in outcome) {
        outgoing.destroy();
        reject(outcome.error);
      } else resolve(outcome.response);
    };
    const outgoing = send(request.url, {
      method: request.method,
      agent: guardedAgent(request.url),
      headers: {
        accept: 'application/json',
        ...request.headers,
        ...(request.body === undefined ? {} : { 'content-length': String(bodyLength(request.body)) }),
      },
    });
    const timer = setTimeout(() => finish({ error: timeoutError(request.timeoutMs) }), request.timeoutMs);
    const onAbort = () => finish({ error: request.signal?.reason });
    request.signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.on('error', (error) => finish({ error }));
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      const maxBytes = request.maxAnswerBytes ?? MAX_ANSWER_BYTES;
      let bytes = 0;
      incoming.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxBytes)
          finish({
            error: Object.assign(new Error(`answer larger than ${maxBytes} bytes`), {
              code: 'EANSWERTOOLARGE',
            }),
          });
        else chunks.push(chunk);
      });
      incoming.on('error', (error) => finish({ error }));
      incoming.on('end', () =>
        finish({
          response: {
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          },
        }),
      );
      // A connection closed before the answer ended.
      incoming.on('close', () =>
        finish({
          error: Object.assign(new Error('connection closed before the answer ended'), { code: 'ECONNRESET' }),
        }),
      );
    });
    if (typeof request.body === 'object') {
      const body = request.body.open();
      body.on('error', (error) => finish({ error }));
      body.pipe(outgoing);
    } else outgoing.end(request.body);
  });
}

function bodyLength(body: string | OutboundUpload): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}

/**
 * Checks a destination the connector's SDK will reach with a transport that takes no agent:
 * the address literal, and every address its name resolves to now. Throws as
 * outboundRequest does. It cannot see a later resolution, so it serves only for hosts this
 * deployment configures, never for hosts a user names.
 */
export async function assertConfiguredDestination(url: URL): Promise<void> {
  assertDestinationAllowed(url);
  const lookup = guardedLookup(portOf(url));
  await new Promise<void>((resolve, reject) => {
    lookup(url.hostname.replace(/^\[|\]$/g, ''), { all: true }, (error) => (error ? reject(error) : resolve()));
  });
}
