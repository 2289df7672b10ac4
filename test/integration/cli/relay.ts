/**
 * An HTTP relay in front of the twin's API for the dps process under test: it forwards every
 * request, records what passed (method, path, Idempotency-Key, status), and can lose the answer
 * of one request after the service handled it (the connection reset as the answer comes back),
 * which is what a client's retry of a create must survive without creating twice.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Passed {
  readonly method: string;
  readonly path: string;
  readonly idempotencyKey: string | undefined;
  readonly status: number;
  /** Whether the relay dropped the answer instead of passing it on. */
  readonly dropped: boolean;
}

export interface ApiRelay {
  /** The relay's base URL, with the API's path: for DPS_BASE_URL. */
  readonly baseUrl: string;
  readonly passed: Passed[];
  /** Drops the answer of the next request whose method and path match (path without query). */
  dropNextAnswer(method: string, path: string): void;
  close(): Promise<void>;
}

export async function startApiRelay(apiUrl: string): Promise<ApiRelay> {
  const target = new URL(apiUrl);
  const passed: Passed[] = [];
  let drop: { method: string; path: string } | undefined;
  const server = createServer((incoming: IncomingMessage, outgoing) => {
    const path = (incoming.url ?? '/').split('?')[0]!;
    const dropThis = drop !== undefined && drop.method === incoming.method && path.endsWith(drop.path);
    if (dropThis) drop = undefined;
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const header = incoming.headers['idempotency-key'];
          passed.push({
            method: incoming.method ?? 'GET',
            path,
            idempotencyKey: typeof header === 'string' ? header : undefined,
            status: answer.statusCode ?? 0,
            dropped: dropThis,
          });
          // The service did the work; its answer is lost on the way back.
          if (dropThis) return incoming.socket.destroy();
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          outgoing.end(Buffer.concat(chunks));
        });
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    passed,
    dropNextAnswer(method, path) {
      drop = { method, path };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
