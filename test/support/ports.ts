/**
 * Ports a test names itself (a twin restarted on the ports it had, a stand-in started behind a
 * gate), picked below Linux's ephemeral range (32768-60999). A port from that range, free when
 * it was picked, can be handed to another test's listen(0) or outgoing connection before it is
 * used (EADDRINUSE in CI); nothing takes a port below it unless it names it.
 */
import { createServer } from 'node:net';

const LOWEST = 20_000;
const SPAN = 12_000;

/** A port of 127.0.0.1 that was free when asked, below the ephemeral range. */
export async function namedPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = LOWEST + Math.floor(Math.random() * SPAN);
    const server = createServer();
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return port;
    }
  }
  throw new Error('no free port below the ephemeral range');
}
