/**
 * An HTTP relay in front of the twin's DynamoDB, given to the functions as their endpoint
 * (TwinOptions.environment): it forwards every request unchanged, and can refuse the requests
 * a test names, with what DynamoDB answers a caller it does not allow, or hold one until the
 * test lets it through. The code under test runs as it is; only the store's answers change.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { namedPort } from './ports';

/** One request of the DynamoDB JSON protocol, as the gate sees it. */
export interface DynamoRequest {
  /** The operation, e.g. PutItem or TransactWriteItems. */
  readonly operation: string;
  /** The request body as text: keys and values appear as written. */
  readonly text: string;
}

export type DynamoMatcher = (dynamoRequest: DynamoRequest) => boolean;

/** A request the gate holds: it arrived, and goes on to DynamoDB when released. */
export interface HeldRequest {
  readonly arrived: Promise<void>;
  release(): void;
}

export interface DynamoGate {
  /** The relay's endpoint, for AWS_ENDPOINT_URL_DYNAMODB. */
  readonly endpoint: string;
  /** The port the twin's DynamoDB must listen on (TwinOptions.servicePorts.dynamodb). */
  readonly upstreamPort: number;
  /** Refuses every matching request (400 AccessDeniedException) until the returned function is called. */
  refuse(matches: DynamoMatcher): () => void;
  /** Answers every matching request with `body` (200) instead of DynamoDB, until the returned function is called. */
  answer(matches: DynamoMatcher, body: Readonly<Record<string, unknown>>): () => void;
  /** Holds the next matching request until it is released. */
  hold(matches: DynamoMatcher): HeldRequest;
  close(): Promise<void>;
}

const ACCESS_DENIED = JSON.stringify({
  __type: 'com.amazon.coral.service#AccessDeniedException',
  message: 'refused by the test’s DynamoDB gate',
});

/** What a matching request gets instead of DynamoDB's answer. */
type Interception =
  | { readonly kind: 'refuse' }
  | { readonly kind: 'answer'; readonly body: string }
  | { readonly kind: 'hold'; readonly arrived: () => void; readonly released: Promise<void> };

export async function startDynamoGate(): Promise<DynamoGate> {
  const upstreamPort = await namedPort();
  const interceptions = new Map<DynamoMatcher, Interception>();

  const forward = (incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse) => {
    const upstream = request(
      { host: '127.0.0.1', port: upstreamPort, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    upstream.end(body);
  };
  const reply = (outgoing: ServerResponse, status: number, text: string) => {
    outgoing.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
    outgoing.end(text);
  };

  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = String(incoming.headers['x-amz-target'] ?? '');
      const seen: DynamoRequest = { operation: target.slice(target.indexOf('.') + 1), text: body.toString('utf8') };
      const match = [...interceptions].find(([matches]) => matches(seen));
      if (!match) return forward(incoming, body, outgoing);
      const [matcher, interception] = match;
      if (interception.kind === 'refuse') return reply(outgoing, 400, ACCESS_DENIED);
      if (interception.kind === 'answer') return reply(outgoing, 200, interception.body);
      interceptions.delete(matcher);
      interception.arrived();
      void interception.released.then(() => forward(incoming, body, outgoing));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const intercept = (matches: DynamoMatcher, interception: Interception) => {
    interceptions.set(matches, interception);
    return () => void interceptions.delete(matches);
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    upstreamPort,
    refuse: (matches) => intercept(matches, { kind: 'refuse' }),
    answer: (matches, body) => intercept(matches, { kind: 'answer', body: JSON.stringify(body) }),
    hold(matches) {
      let arrived!: () => void;
      let release!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      intercept(matches, { kind: 'hold', arrived, released });
      return { arrived: arrival, release };
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
