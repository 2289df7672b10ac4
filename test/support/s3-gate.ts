/**
 * An HTTP relay in front of the twin's S3 for a process under test (a sweep run as a child):
 * it forwards every request unchanged (the Host header too, which SigV4 signs), records the
 * keys of each DeleteObjects it forwards, and can hold the nth DeleteObjects without forwarding
 * it, so a test knows exactly where the process stands when it kills it. It can also break the
 * connection of every read of some keys, as a store that fails to give them back (not a missing
 * key: the SDK sees its connection reset, retries, and gives up).
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A read the gate holds without ever answering it (S3Gate.holdRead). */
export interface HeldRead {
  /** Settles with the request's path once a matching GET arrives. */
  readonly arrived: Promise<string>;
  /** Settles when the caller closes the held read's connection: it stopped waiting for it. */
  readonly abandoned: Promise<void>;
}

export interface S3Gate {
  /** The relay's endpoint, to give the process instead of the S3 endpoint. */
  readonly endpoint: string;
  /** Keys of every DeleteObjects forwarded to S3, one entry per key and request. */
  readonly deletedKeys: string[];
  /** Holds the nth DeleteObjects from now (1 = the next one); resolves once it arrives, with its keys. */
  holdDeletion(nth: number): Promise<string[]>;
  /** Drops the held request (its sender is gone) and forwards everything from then on. */
  dropHeld(): void;
  /** Resets the connection of every GET whose path contains `keyPart`, until restoreReads. */
  breakReads(keyPart: string): void;
  /** Forwards every GET again; answers how many were broken since breakReads. */
  restoreReads(): number;
  /** Holds the next GET whose path contains `keyPart`, unanswered until its caller gives up or the gate closes. */
  holdRead(keyPart: string): HeldRead;
  close(): Promise<void>;
}

const isDeleteObjects = (incoming: IncomingMessage) =>
  incoming.method === 'POST' && new URL(incoming.url ?? '/', 'http://gate').searchParams.has('delete');

/** The <Key> values of a DeleteObjects body (the local keys hold no XML entities but &amp;). */
const keysOf = (body: string) =>
  [...body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));

export async function startS3Gate(s3Endpoint: string): Promise<S3Gate> {
  const target = new URL(s3Endpoint);
  const deletedKeys: string[] = [];
  let countdown = 0;
  let onHeld: ((keys: string[]) => void) | undefined;
  let held: ServerResponse | undefined;
  let brokenReads: { readonly keyPart: string; count: number } | undefined;
  let readToHold:
    { readonly keyPart: string; readonly arrived: (path: string) => void; readonly gone: () => void } | undefined;
  const heldReads = new Set<ServerResponse>();

  const forward = (incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    upstream.end(body);
  };

  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const hold = readToHold;
      if (hold && incoming.method === 'GET' && (incoming.url ?? '').includes(hold.keyPart)) {
        readToHold = undefined;
        heldReads.add(outgoing);
        outgoing.once('close', () => {
          heldReads.delete(outgoing);
          hold.gone();
        });
        hold.arrived(incoming.url ?? '');
        return;
      }
      if (brokenReads && incoming.method === 'GET' && (incoming.url ?? '').includes(brokenReads.keyPart)) {
        brokenReads.count += 1;
        incoming.socket.destroy();
        return;
      }
      const body = Buffer.concat(chunks);
      if (isDeleteObjects(incoming)) {
        const keys = keysOf(body.toString('utf8'));
        if (countdown > 0 && (countdown -= 1) === 0) {
          held = outgoing;
          onHeld?.(keys);
          return;
        }
        deletedKeys.push(...keys);
      }
      forward(incoming, body, outgoing);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    deletedKeys,
    holdDeletion(nth) {
      countdown = nth;
      return new Promise((resolve) => (onHeld = resolve));
    },
    dropHeld() {
      countdown = 0;
      held?.destroy();
      held = undefined;
    },
    breakReads(keyPart) {
      brokenReads = { keyPart, count: 0 };
    },
    restoreReads() {
      const count = brokenReads?.count ?? 0;
      brokenReads = undefined;
      return count;
    },
    holdRead(keyPart) {
      let arrived!: (path: string) => void;
      let gone!: () => void;
      const arrival = new Promise<string>((resolve) => (arrived = resolve));
      const abandoned = new Promise<void>((resolve) => (gone = resolve));
      readToHold = { keyPart, arrived, gone };
      return { arrived: arrival, abandoned };
    },
    close() {
      for (const read of heldReads) read.destroy();
      held?.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
