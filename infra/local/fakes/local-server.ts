/**
 * Where the protocol fakes listen: 127.0.0.1, with their sockets tracked so that closing a fake
 * ends the SDKs' kept-alive connections at once instead of waiting for them.
 */
import { createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';

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

/** A local port held by a connection, where nothing listens. */
export interface HeldPort {
  readonly port: number;
  /** Ends the holding connection; the port may stay in TIME_WAIT a while. */
  release(): Promise<void>;
}

/**
 * Holds a port on 127.0.0.1 without listening on it (issue 38: a port found free and closed
 * again is free for anyone, and on a busy machine another process took one a test relied on).
 * Node cannot bind a TCP port without listening, so a connection holds it: a socket connected
 * from the port to a throw-away listener. A connection to the port is then refused as at a
 * closed one (ECONNREFUSED), and the kernel hands it to no other socket that asks for any port.
 * With `port` 0 the kernel picks it at connect, without SO_REUSEADDR, so no one can listen on it
 * either; a given `port` (a fake's own, while it plays unreachable) is bound with SO_REUSEADDR,
 * as a Node server binds, so its owner can listen there again before releasing it.
 */
export async function holdLocalPort(port = 0): Promise<HeldPort> {
  const listener = createTcpServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => listener.once('connection', resolve));
  const holder = connect({
    host: '127.0.0.1',
    port: (listener.address() as AddressInfo).port,
    ...(port === 0 ? {} : { localAddress: '127.0.0.1', localPort: port }),
  });
  await new Promise<void>((resolve, reject) => holder.once('connect', resolve).once('error', reject));
  const sockets = [holder, await accepted];
  // Not listening any more from here (its 'close' waits for the accepted end, which stays open with the holder).
  listener.close();
  // Neither end keeps the process alive, nor makes noise if the other goes first.
  for (const socket of sockets) {
    socket.on('error', () => undefined);
    socket.unref();
  }
  return {
    port: holder.localPort!,
    async release() {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** A fake's server that can play unreachable at its own port. */
export interface SwitchableListening extends Listening {
  /** Reachable (listening) or not: while not, its port refuses connections and stays the fake's (holdLocalPort). */
  reachable(on: boolean): Promise<void>;
}

/**
 * Starts `server` as listenLocally does, able to stop listening and start again at the same
 * port (a fake's `unreachable` failure): meanwhile the port is held, not let go, so that no
 * other process is given it and answers in the fake's place (issue 38). Between the listener's
 * close and the hold, two turns of the event loop at most, where it used to be the whole outage.
 */
export async function listenSwitchably(server: Server, port = 0): Promise<SwitchableListening> {
  let listening: Listening | undefined = await listenLocally(server, port);
  let held: HeldPort | undefined;
  const own = listening.port;
  return {
    port: own,
    async reachable(on) {
      if (!on && listening) {
        // The listener's port goes with this call; its connections end meanwhile.
        const closing = listening.close();
        listening = undefined;
        held = await holdLocalPort(own);
        await closing;
      } else if (on && !listening) {
        // Listening again while the port is still held (both SO_REUSEADDR, the holder not listening), then let go.
        listening = await listenLocally(server, own);
        await held?.release();
        held = undefined;
      }
    },
    async close() {
      await listening?.close();
      listening = undefined;
      await held?.release();
      held = undefined;
    },
  };
}
