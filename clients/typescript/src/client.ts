/**
 * The typed client: openapi-fetch over the generated `paths`, with the hand-written layer on
 * top (tokens, retries, idempotency keys, refusals thrown as ProblemError, list iterators).
 * `dps.api.GET('/connections/{connection_id}', { params: { path: { connection_id: 1 } } })` is
 * typed end to end from the OpenAPI document; `ok(...)` unwraps an answer's body.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { TokenSource, type ClientCredentials } from './auth.js';
import type { paths } from './generated/openapi.js';
import { IDEMPOTENT_CREATES } from './generated/operations.js';
import { ProblemError, problemOf } from './problem.js';
import { DEFAULT_RETRY, transport, type RetryOptions } from './transport.js';

export interface DpsClientOptions {
  /** The API's base URL, e.g. http://127.0.0.1:3000/api/data/v1. */
  readonly baseUrl: string;
  /** Client credentials: tokens are fetched and renewed from them. */
  readonly credentials?: ClientCredentials;
  /** Or a bearer token the caller manages. */
  readonly token?: string;
  readonly retry?: Partial<RetryOptions>;
  /** The fetch to send requests with (default: the global one). */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** Makes an Idempotency-Key for a create that has none (default: a random UUID). */
  readonly idempotencyKey?: () => string;
}

/** The paths whose GET answers a page: `{ offset, limit, total, items }`. */
export type ListPath = {
  [P in keyof paths]: paths[P] extends {
    get: { responses: { 200: { content: { 'application/json': { items: readonly unknown[]; total: number } } } } };
  }
    ? P
    : never;
}[keyof paths];

type ListOperation<P extends ListPath> = paths[P]['get'];
/** One item of the list at path P. */
export type ListItem<P extends ListPath> =
  ListOperation<P>['responses'][200]['content']['application/json']['items'][number];
type ListParameters<P extends ListPath> = ListOperation<P>['parameters'];
/** A list's path parameters and query, less the paging the iterator does. */
export interface ListInit<P extends ListPath> {
  readonly path?: ListParameters<P>['path'];
  readonly query?: Omit<NonNullable<ListParameters<P>['query']>, 'offset' | 'limit'>;
  /** Records per page (default 200, at most 1000). */
  readonly pageSize?: number;
  readonly signal?: AbortSignal;
}

export interface DpsClient {
  readonly baseUrl: string;
  /** The typed openapi-fetch client: one method per HTTP verb, paths and bodies from the document. */
  readonly api: Client<paths>;
  /** The authenticated, retrying fetch under `api`: for requests its typed methods do not cover. */
  fetch(request: Request): Promise<Response>;
  /** Every item of a list, page by page (offset and limit), as an async iterator. */
  list<P extends ListPath>(path: P, init?: ListInit<P>): AsyncIterable<ListItem<P>>;
}

/** The body of a successful answer; refusals were already thrown as ProblemError by the client. */
export async function ok<R extends { data?: unknown; response: Response }>(
  answer: Promise<R>,
): Promise<Exclude<R['data'], undefined>> {
  const { data } = await answer;
  return data as Exclude<R['data'], undefined>;
}

/** Throws every failure answer as a ProblemError with its catalogue code. */
const problems: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    if (response.ok) return undefined;
    throw new ProblemError(response.status, await problemOf(response), `${request.method} ${schemaPath}`);
  },
};

/** A client of the API at `options.baseUrl`. */
export function createDpsClient(options: DpsClientOptions): DpsClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const anonymous = transport({ retry, fetch: send });
  const tokens = options.credentials
    ? new TokenSource(`${baseUrl}/oauth/token`, options.credentials, anonymous)
    : undefined;
  const makeKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const authenticated = transport({
    retry,
    fetch: send,
    ...(tokens ? { tokens } : {}),
    ...(options.token ? { token: options.token } : {}),
  });
  const api = createClient<paths>({ baseUrl, fetch: authenticated });
  api.use({
    onRequest({ request, schemaPath }) {
      // One key per call, made before the first attempt: every retry of it sends the same key.
      if (IDEMPOTENT_CREATES.has(`${request.method} ${schemaPath}`) && !request.headers.has('idempotency-key'))
        request.headers.set('idempotency-key', makeKey());
      return request;
    },
  });
  api.use(problems);

  /** The list operations seen through one loose signature: the typed one is the public `list`. */
  const getPage = api.GET as unknown as (
    path: string,
    init: { params: { path?: unknown; query: Record<string, unknown> }; signal?: AbortSignal },
  ) => Promise<{ data?: { items: unknown[]; total: number } }>;

  async function* list<P extends ListPath>(path: P, init: ListInit<P> = {}): AsyncGenerator<ListItem<P>> {
    const limit = init.pageSize ?? 200;
    for (let offset = 0; ;) {
      const { data } = await getPage(path, {
        params: { path: init.path, query: { ...(init.query ?? {}), offset, limit } },
        ...(init.signal ? { signal: init.signal } : {}),
      });
      const items = (data?.items ?? []) as ListItem<P>[];
      yield* items;
      offset += items.length;
      if (items.length === 0 || offset >= (data?.total ?? 0)) return;
    }
  }

  return { baseUrl, api, fetch: authenticated, list };
}
