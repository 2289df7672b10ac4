/**
 * Protocol-level fakes of misbehaving S3-compatible endpoints, for failures the local S3
 * (s3rver) cannot produce. They listen on 127.0.0.1 only and are closed by the test.
 */
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface FakeEndpoint {
  readonly endpoint: string;
  readonly port: number;
  /** Requests (or connections) received. */
  readonly hits: () => number;
  close(): Promise<void>;
}

async function listen(server: HttpServer | TcpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

/** Accepts connections and never answers: every call times out. */
export async function hangingEndpoint(): Promise<FakeEndpoint> {
  const sockets = new Set<Socket>();
  let hits = 0;
  const server = createTcpServer((socket) => {
    hits += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  const port = await listen(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    hits: () => hits,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Answers every S3 request with the same error: a 500 InternalError by default, as a failing
 * provider would, or another status and code (403 SignatureDoesNotMatch: a wrong secret key,
 * which s3rver cannot say since it does not check SigV4 signatures).
 */
export async function failingEndpoint(status = 500, code = 'InternalError'): Promise<FakeEndpoint> {
  let hits = 0;
  const server = createHttpServer((request, response) => {
    hits += 1;
    request.resume();
    const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>The store refused the request.</Message></Error>`;
    response.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
  const port = await listen(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    hits: () => hits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Passes a request on to `upstream` as it came (headers included: the signature stays valid) and its answer back. */
function forward(upstream: URL, request: IncomingMessage, response: ServerResponse): void {
  const forwarded = httpRequest(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: request.url,
      headers: request.headers,
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  forwarded.on('error', () => response.destroy());
  request.pipe(forwarded);
}

/**
 * A pass-through proxy to an S3-compatible endpoint whose first `failures` PUTs are answered
 * 503 SlowDown, as a store under load does: what bounded retries are for.
 */
export async function flakyProxy(
  target: string,
  failures: number,
): Promise<FakeEndpoint & { readonly puts: () => number }> {
  const upstream = new URL(target);
  let hits = 0;
  let puts = 0;
  const server = createHttpServer((request, response) => {
    hits += 1;
    if (request.method === 'PUT') {
      puts += 1;
      if (puts <= failures) {
        request.resume();
        const body =
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>';
        response.writeHead(503, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
        response.end(body);
        return;
      }
    }
    forward(upstream, request, response);
  });
  const port = await listen(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    hits: () => hits,
    puts: () => puts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface CuttableProxy extends FakeEndpoint {
  /** Arms the cut: the first request `matches` accepts, and every one after it, dies unanswered. */
  arm(matches: (method: string, url: string) => boolean): void;
  /** Settles when an armed cut happened: the moment a worker would have died. */
  readonly cut: Promise<void>;
}

/**
 * A pass-through proxy to an S3-compatible endpoint that can be cut at a chosen request, as
 * if the worker talking through it had died there: the matching request and all later ones
 * are dropped without an answer, so nothing after that point reaches the store.
 */
export async function cuttableProxy(target: string): Promise<CuttableProxy> {
  const upstream = new URL(target);
  let hits = 0;
  let matches: ((method: string, url: string) => boolean) | undefined;
  let isCut = false;
  let onCut = (): void => undefined;
  const cut = new Promise<void>((resolve) => (onCut = resolve));
  const server = createHttpServer((request, response) => {
    hits += 1;
    if (!isCut && matches?.(request.method ?? '', request.url ?? '')) {
      isCut = true;
      onCut();
    }
    if (isCut) {
      request.socket.destroy();
      return;
    }
    forward(upstream, request, response);
  });
  const port = await listen(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    hits: () => hits,
    arm: (match) => (matches = match),
    cut,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
