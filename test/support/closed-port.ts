/**
 * A local port where nothing listens, and where nothing else can start listening while a test
 * relies on it (issue 38). A port found free and then released (listen on 0, close) is free for
 * anyone: on a busy machine another process took one such "closed" port and answered 400. Every
 * test that needs a port nobody listens on takes one here.
 */
import { holdLocalPort } from '../../infra/local/fakes/local-server';

/** A closed port held until `release()`. */
export interface ClosedPort {
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Lets the port go (after the tests that rely on it); it may stay in TIME_WAIT a while. */
  release(): Promise<void>;
}

/**
 * A port on 127.0.0.1 where nothing listens until `release()`, and nothing can: a connection
 * holds it (infra/local/fakes/local-server.ts), so a connection to it is refused (ECONNREFUSED),
 * the kernel gives it to no other socket, and a listen on it fails with EADDRINUSE.
 */
export async function closedLocalPort(): Promise<ClosedPort> {
  const held = await holdLocalPort();
  return { port: held.port, url: `http://127.0.0.1:${held.port}`, release: () => held.release() };
}
