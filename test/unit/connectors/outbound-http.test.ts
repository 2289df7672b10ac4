import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertConfiguredDestination, outboundRequest } from '../../../shared/connectors/outbound-http';
import { AppError } from '../../../shared/errors/app-error';

/** A server whose answer each path chooses: JSON, silence, an endless body, a cut connection. */
let server: Server;
let port: number;
const sockets = new Set<Socket>();
const savedAllowList = process.env.OUTBOUND_ALLOW_LIST;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    if (request.url === '/token') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          method: request.method,
          type: request.headers['content-type'],
          length: request.headers['content-length'],
        }),
      );
    } else if (request.url === '/huge') {
      response.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const send = () => {
        while (response.write(chunk));
      };
      response.on('drain', send);
      send();
    } else if (request.url === '/cut') {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
      setTimeout(() => request.socket.destroy(), 20);
    }
    // Any other path: no answer.
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});

afterEach(() => {
  process.env.OUTBOUND_ALLOW_LIST = `127.0.0.1:${port}`;
});

afterAll(async () => {
  if (savedAllowList === undefined) delete process.env.OUTBOUND_ALLOW_LIST;
  else process.env.OUTBOUND_ALLOW_LIST = savedAllowList;
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const url = (path: string) => new URL(`http://127.0.0.1:${port}${path}`);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { name?: string; code?: string },
  );

describe('outboundRequest', () => {
  it('sends the body with its length and answers status, headers and text', async () => {
    process.env.OUTBOUND_ALLOW_LIST = `127.0.0.1:${port}`;
    const response = await outboundRequest({
      method: 'POST',
      url: url('/token'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&b=é',
      timeoutMs: 1_000,
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({
      method: 'POST',
      type: 'application/x-www-form-urlencoded',
      length: '8',
    });
  });

  it('fails with a TimeoutError when the whole exchange outlasts the bound', async () => {
    const started = Date.now();
    expect(await failure(outboundRequest({ method: 'GET', url: url('/silent'), timeoutMs: 200 }))).toMatchObject({
      name: 'TimeoutError',
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('cuts off an answer larger than a token answer can be, and names a connection cut mid-answer', async () => {
    expect(await failure(outboundRequest({ method: 'GET', url: url('/huge'), timeoutMs: 5_000 }))).toMatchObject({
      code: 'EANSWERTOOLARGE',
    });
    expect(await failure(outboundRequest({ method: 'GET', url: url('/cut'), timeoutMs: 5_000 }))).toMatchObject({
      code: 'ECONNRESET',
    });
  });

  it('rejects with the reason of an abort', async () => {
    const controller = new AbortController();
    const reason = new Error('stopped');
    const pending = outboundRequest({
      method: 'GET',
      url: url('/silent'),
      timeoutMs: 5_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });

  it('refuses a destination the guard refuses (30-1130), before connecting', async () => {
    process.env.OUTBOUND_ALLOW_LIST = '';
    const refused = await failure(outboundRequest({ method: 'GET', url: url('/token'), timeoutMs: 1_000 }));
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: '30-1130' });
    await expect(assertConfiguredDestination(url('/'))).rejects.toMatchObject({ code: '30-1130' });
    await expect(assertConfiguredDestination(new URL('http://localhost./'))).rejects.toMatchObject({ code: '30-1130' });
  });
});
