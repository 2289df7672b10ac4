/**
 * Protocol-level fakes of misbehaving S3-compatible endpoints, for failures the local S3
 * (s3rver) cannot produce. Both listen on 127.0.0.1 only and are closed by the test.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
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

/** Answers every S3 request with a 500 InternalError, as a failing provider would. */
export async function failingEndpoint(): Promise<FakeEndpoint> {
  let hits = 0;
  const server = createHttpServer((request, response) => {
    hits += 1;
    request.resume();
    const body = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>';
    response.writeHead(500, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
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
