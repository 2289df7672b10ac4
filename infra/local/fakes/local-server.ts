/**
 * Where the protocol fakes listen: 127.0.0.1, with their sockets tracked so that closing a fake
 * ends the SDKs' kept-alive connections at once instead of waiting for them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A free port, for a fake that must know its own URL before it listens (its token service names it). */
export async function freeLocalPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface Listening {
  readonly port: number;
  /** Destroys the open connections, then closes the server. */
  close(): Promise<void>;
}

/** Starts `server` on 127.0.0.1 (a free port when none is given). */
export async function listenLocally(server: Server, port = 0): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
