/**
 * One HTTP request and its whole answer, over node:http with kept-alive connections shared by
 * every client of the process. fetch (undici) costs about 0.3 ms more CPU per request (web
 * streams, its dispatcher), and the test suite sends about 23,000. As fetch does, a compressed
 * answer is read decompressed, its content-encoding header left as sent.
 */
import { Agent, request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

export interface HttpExchange {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

const AGENT = new Agent({ keepAlive: true });

const DECODERS: Readonly<Record<string, (bytes: Buffer) => Buffer>> = {
  gzip: gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** A kept-alive connection the server had closed when it was reused: nothing reached the service. */
class StaleConnection extends Error {}

/** Sends `method url` with `headers` and `body` (its length given, as fetch gives it) and reads the answer. */
export async function exchange(
  url: string,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
): Promise<HttpExchange> {
  const sent = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  try {
    return await once(new URL(url), method, sent, body);
  } catch (error) {
    if (error instanceof StaleConnection) return once(new URL(url), method, sent, body);
    throw error;
  }
}

function once(
  url: URL,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
): Promise<HttpExchange> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers, agent: AGENT }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const answered = new Headers();
        for (let index = 0; index < response.rawHeaders.length; index += 2)
          answered.append(response.rawHeaders[index]!, response.rawHeaders[index + 1]!);
        const decode = DECODERS[answered.get('content-encoding') ?? ''] ?? ((bytes: Buffer) => bytes);
        try {
          const text = decode(Buffer.concat(chunks)).toString('utf8');
          resolve({ status: response.statusCode ?? 0, headers: answered, text });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const stale = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      reject(stale ? new StaleConnection(error.message, { cause: error }) : error);
    });
    request.end(body);
  });
}
