/**
 * An OpenLineage receiver for tests, on a random 127.0.0.1 port (a Marquez stands here when
 * deployed): every event POSTed to it is recorded as tried, and accepted with 201, or refused
 * with 503 while `refusing`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RunEvent } from '../../shared/openlineage/events';

export interface LineageReceiver {
  readonly server: Server;
  /** Where the twin or a tenant's endpoint sends events: `http://127.0.0.1:<port>/api/v1/lineage`. */
  readonly url: string;
  readonly port: number;
  /** Every event answered 201, as POSTed. */
  readonly accepted: unknown[];
  /** Every event POSTed, accepted or refused. */
  readonly tried: unknown[];
  refusing: boolean;
  /** The accepted events, each read as a run event (a test fails on one that is not). */
  events(): RunEvent[];
}

export async function startLineageReceiver(): Promise<LineageReceiver> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const event: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      into.tried.push(event);
      if (!into.refusing) into.accepted.push(event);
      response.writeHead(into.refusing ? 503 : 201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const into: LineageReceiver = {
    server,
    port,
    url: `http://127.0.0.1:${port}/api/v1/lineage`,
    accepted: [],
    tried: [],
    refusing: false,
    events: () => into.accepted.map((event) => RunEvent.parse(event)),
  };
  return into;
}
