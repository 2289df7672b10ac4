/**
 * The closed port the tests rely on stays closed while they run (issue 38): a connection to it
 * is refused, and nothing else can start listening on it until it is released.
 */
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { holdLocalPort, listenLocally, listenSwitchably } from '../../../infra/local/fakes/local-server';
import { closedLocalPort } from '../../support/closed-port';

/** The error code of a connection attempt to `port` (undefined when it connected). */
function connectionError(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
  });
}

/** The error code of listening on `port` (undefined when it listened; the server is closed again). */
function listenError(port: number, host: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server: Server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

describe('closedLocalPort', () => {
  it('refuses connections, and no one else can listen on it', async () => {
    const closed = await closedLocalPort();
    try {
      expect(closed.url).toBe(`http://127.0.0.1:${closed.port}`);
      expect(await connectionError(closed.port)).toBe('ECONNREFUSED');
      // A server of another test (or process) given this port by chance, or asking for it.
      expect(await listenError(closed.port, '127.0.0.1')).toBe('EADDRINUSE');
      expect(await listenError(closed.port, '0.0.0.0')).toBe('EADDRINUSE');
      expect(await connectionError(closed.port)).toBe('ECONNREFUSED');
    } finally {
      await closed.release();
    }
  });

  it('gives a port of its own each time', async () => {
    const ports = await Promise.all([closedLocalPort(), closedLocalPort(), closedLocalPort()]);
    expect(new Set(ports.map(({ port }) => port)).size).toBe(3);
    await Promise.all(ports.map((port) => port.release()));
  });
});

describe('holdLocalPort of a given port (a fake playing unreachable)', () => {
  it('refuses connections while held, and its owner can listen there again before releasing it', async () => {
    const probe = await listenLocally(createHttpServer());
    const port = probe.port;
    await probe.close();
    const held = await holdLocalPort(port);
    try {
      expect(held.port).toBe(port);
      expect(await connectionError(port)).toBe('ECONNREFUSED');
      const again = await listenLocally(createHttpServer(), port);
      expect(await connectionError(port)).toBeUndefined();
      await again.close();
    } finally {
      await held.release();
    }
  });
});

describe('listenSwitchably', () => {
  it('refuses connections while unreachable, and answers at the same port once reachable again', async () => {
    const listening = await listenSwitchably(createHttpServer((_, response) => response.end('ok')));
    try {
      await listening.reachable(false);
      expect(await connectionError(listening.port)).toBe('ECONNREFUSED');
      await listening.reachable(true);
      expect(await (await fetch(`http://127.0.0.1:${listening.port}/`)).text()).toBe('ok');
    } finally {
      await listening.close();
    }
  });
});
