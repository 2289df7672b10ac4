/**
 * An app's backend hosted elsewhere (docs/apps.md, "App backends"), as a real HTTP server on a
 * random 127.0.0.1 port: it records every call it gets and answers as it is told to, so a test
 * sees what the service sends (and does not send) and how it takes each kind of answer.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { listenLocally } from '../../infra/local/fakes/local-server';
import { readBody, sendJson } from '../../infra/local/fakes/pricing-uploads';

/**
 * How the backend answers: `answer` 200 with `{greeting, received}` (the call's input echoed),
 * `fail` 503, `hang` never (the connection stays open until the fake closes), `oversize` 200
 * with a JSON body of `bytes` bytes, `not-json` 200 with text.
 */
export type AppBackendBehaviour =
  | { readonly kind: 'answer' }
  | { readonly kind: 'fail' }
  | { readonly kind: 'hang' }
  | { readonly kind: 'oversize'; readonly bytes: number }
  | { readonly kind: 'not-json' };

export interface ReceivedCall {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

export interface AppBackendFake {
  /** http://127.0.0.1:<port>: allow-list `127.0.0.1:<port>` for the service to reach it. */
  readonly baseUrl: string;
  readonly port: number;
  /** Every call, in the order it arrived. */
  readonly calls: readonly ReceivedCall[];
  behave(behaviour: AppBackendBehaviour): void;
  close(): Promise<void>;
}

export async function startAppBackend(): Promise<AppBackendFake> {
  const calls: ReceivedCall[] = [];
  let behaviour: AppBackendBehaviour = { kind: 'answer' };
  const answer = (response: ServerResponse, body: unknown) => {
    switch (behaviour.kind) {
      case 'answer':
        return sendJson(response, 200, { greeting: 'hello from the backend', received: body });
      case 'fail':
        return sendJson(response, 503, { message: 'backend unavailable' });
      case 'hang':
        return undefined;
      case 'oversize':
        return sendJson(response, 200, { padding: 'x'.repeat(behaviour.bytes) });
      case 'not-json':
        response.writeHead(200, { 'content-type': 'text/plain' });
        return response.end('all good');
    }
  };
  const server = createServer((request, response) => {
    void readBody(request).then((text) => {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      calls.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
      answer(response, body);
    });
  });
  const listening = await listenLocally(server);
  return {
    baseUrl: `http://127.0.0.1:${listening.port}`,
    port: listening.port,
    calls,
    behave(next) {
      behaviour = next;
    },
    close: () => listening.close(),
  };
}
