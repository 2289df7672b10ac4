/**
 * The typed test client: every call names an operation of the route table, and its path
 * parameters, query, body and response are typed from that route's zod schemas. Successful
 * bodies are checked against the route's response schema, so a test that passes also shows
 * the service kept its documented contract. Deliberately invalid input is wrapped in
 * `unchecked(...)`, so it stands out and still type-checks; requests no route describes
 * (unknown paths, raw bytes) go through `raw`.
 */
import type * as z from 'zod';
import { routeTable, type OperationId, type RouteTable } from '../../functions/routes';
import type { BodyType } from '../../shared/http/route';
import { Problem } from '../../shared/errors/problem-body';
import { exchange } from './http-exchange';

/** A value sent as is, outside the operation's declared input type (hostile and invalid input). */
export interface Unchecked {
  readonly [UNCHECKED]: unknown;
}
declare const UNCHECKED: unique symbol;

/** Marks a request part as deliberately outside the operation's schema. */
export function unchecked(value: unknown): Unchecked {
  return value as Unchecked;
}

type Input<S> = S extends z.ZodType ? z.input<S> : never;
/** Path and query values travel as text: numbers are written as such. */
type Textual<T> = { [K in keyof T]: T[K] extends string | undefined ? T[K] | number : T[K] };
type Output<S> = S extends z.ZodType ? z.output<S> : undefined;
type Request<O extends OperationId> = RouteTable[O]['request'];

/** A declared part of the request: path parameters and body are required, the query is not. */
type Part<K extends 'params' | 'query' | 'body', R> = R extends { readonly [P in K]: infer S }
  ? S extends z.ZodType
    ? K extends 'query'
      ? { readonly [P in K]?: Textual<Input<S>> | Unchecked }
      : K extends 'params'
        ? { readonly [P in K]: Textual<Input<S>> | Unchecked }
        : { readonly [P in K]: Input<S> | Unchecked }
    : object
  : object;

/** An intersection as one object type with the same members. */
type Flattened<T> = { [K in keyof T]: T[K] };

/**
 * What a call sends: the operation's parts, plus transport details. One object type rather than
 * the intersection of the parts: the type checker relates each call's literal to an intersection
 * of these conditional parts anew, about 0.15 s a call; to one flattened type, a few ms.
 */
export type CallOptions<O extends OperationId> = Flattened<
  Part<'params', Request<O>> &
    Part<'query', Request<O>> &
    Part<'body', Request<O>> & {
      /** Overrides the JSON/merge-patch media type the route expects. */
      readonly contentType?: string;
      readonly headers?: Readonly<Record<string, string>>;
      /** Overrides the client's token; null sends no Authorization header. */
      readonly token?: string | null;
    }
>;

/** The options argument may be left out when the operation needs no params and no body. */
type OptionalWhenEmpty<T> = Record<never, never> extends T ? [T?] : [T];

/** The request body operation O takes (before the route's schema transforms it). */
export type RequestBody<O extends OperationId> = Request<O> extends { readonly body: infer S } ? Input<S> : never;

/**
 * `value` as operation O's request body: checked against the route's request schema, so a
 * response sent back (read, change, write back) is typed without a cast. Throws when it is
 * not a valid body; the value itself is returned untouched (not the schema's output).
 */
export function asBody<O extends OperationId>(operationId: O, value: unknown): RequestBody<O> {
  const schema = (routeTable[operationId].request as { body?: z.ZodType }).body;
  if (!schema) throw new Error(`${operationId} takes no body`);
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new Error(`${operationId}: not a valid request body: ${parsed.error.message}\n${JSON.stringify(value)}`);
  return value as RequestBody<O>;
}

/** The body of a successful answer of operation O. */
export type ResponseBody<O extends OperationId> = RouteTable[O]['response'] extends { readonly body: infer S }
  ? Output<S>
  : undefined;

export interface ApiResponse<T> {
  readonly status: number;
  readonly headers: Headers;
  /** The raw response text, for scanning. */
  readonly text: string;
  /** The parsed JSON answer, whatever it is (undefined for an empty or non-JSON answer). */
  readonly json: unknown;
  /** The success body, checked against the route's response schema; throws on a failure answer. */
  readonly body: T;
  /** The RFC 7807 problem of a failure answer; throws when the answer is not one. */
  readonly problem: Problem;
}

/** An HTTP request as the client sends it: for load generators that send it themselves. */
export interface RequestDescription<M extends string = string> {
  readonly method: M;
  /** Path and query, relative to the client's baseUrl. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface RawOptions {
  readonly body?: unknown;
  /** Sent as is when the body is a string; JSON-encoded otherwise. */
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly token?: string | null;
}

const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** The media type of each body type; a call sends its route's first one unless told otherwise. */
const BODY_MEDIA_TYPES: Record<BodyType, string> = {
  json: 'application/json',
  'merge-patch': 'application/merge-patch+json',
  form: 'application/x-www-form-urlencoded',
};

/** An object body as form fields; a string (or nothing) is sent as it is. */
function formEncoded(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  return new URLSearchParams(
    Object.entries(body).map(([name, value]): [string, string] => [name, String(value)]),
  ).toString();
}

function fillPath(template: string, params: unknown): string {
  const values = (params ?? {}) as Record<string, unknown>;
  return template.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`path parameter ${name} of ${template} is missing`);
    return encodeURIComponent(String(values[name]));
  });
}

function queryString(query: unknown): string {
  if (query === undefined) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    if (value !== undefined) search.append(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

class Answer<T> implements ApiResponse<T> {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly text: string,
    readonly json: unknown,
    private readonly parseBody: (json: unknown) => T,
    private readonly label: string,
  ) {}

  get body(): T {
    if (this.status >= 300) throw new Error(`${this.label}: expected a success, got ${this.status} ${this.text}`);
    return this.parseBody(this.json);
  }

  get problem(): Problem {
    const type = this.headers.get('content-type') ?? '';
    if (!type.startsWith(PROBLEM_MEDIA_TYPE))
      throw new Error(`${this.label}: expected a problem, got ${this.status} ${type} ${this.text}`);
    const parsed = Problem.safeParse(this.json);
    if (!parsed.success)
      throw new Error(
        `${this.label}: the problem body breaks the Problem schema: ${parsed.error.message}\n${this.text}`,
      );
    return parsed.data;
  }
}

/** An authenticated (or anonymous) caller of the API under test. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null,
    readonly tenantId?: string,
  ) {}

  /** Calls an operation of the route table. */
  async call<O extends OperationId>(
    operationId: O,
    ...[options]: OptionalWhenEmpty<CallOptions<O>>
  ): Promise<ApiResponse<ResponseBody<O>>> {
    const request = this.describeCall(operationId, options);
    const schema = (routeTable[operationId].response as { body?: z.ZodType }).body;
    const label = `${operationId} ${request.method} ${request.path}`;
    const parseBody = (json: unknown): ResponseBody<O> => {
      if (!schema) return undefined as ResponseBody<O>;
      const parsed = schema.safeParse(json);
      if (!parsed.success)
        throw new Error(
          `${label}: the answer breaks the response schema: ${parsed.error.message}\n${JSON.stringify(json)}`,
        );
      return parsed.data as ResponseBody<O>;
    };
    return this.send(request, parseBody, label);
  }

  /** The HTTP request `call` sends for this operation, without sending it. */
  requestOf<O extends OperationId>(
    operationId: O,
    ...[options]: OptionalWhenEmpty<CallOptions<O>>
  ): RequestDescription<RouteTable[O]['method']> {
    return this.describeCall(operationId, options);
  }

  /** A request no operation describes: unknown paths, wrong methods, raw bodies. */
  raw(method: string, path: string, options: RawOptions = {}): Promise<ApiResponse<unknown>> {
    return this.send(this.describeRaw(method, path, options), (json) => json, `${method} ${path}`);
  }

  private describeCall<O extends OperationId>(
    operationId: O,
    options: CallOptions<O> | undefined,
  ): RequestDescription<RouteTable[O]['method']> {
    const route = routeTable[operationId];
    const sent = (options ?? {}) as {
      params?: unknown;
      query?: unknown;
      body?: unknown;
      contentType?: string;
      headers?: Readonly<Record<string, string>>;
      token?: string | null;
    };
    const [bodyType = 'json'] = (route.request as { bodyTypes?: readonly BodyType[] }).bodyTypes ?? [];
    const contentType = sent.contentType ?? BODY_MEDIA_TYPES[bodyType];
    const path = fillPath(route.path, sent.params) + queryString(sent.query);
    const body = contentType === BODY_MEDIA_TYPES.form ? formEncoded(sent.body) : sent.body;
    return this.describeRaw(route.method, path, { body, contentType, headers: sent.headers, token: sent.token });
  }

  private describeRaw<M extends string>(method: M, path: string, options: RawOptions): RequestDescription<M> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= options.contentType ?? 'application/json';
    }
    return { method, path, headers, body };
  }

  private async send<T>(
    request: RequestDescription,
    parseBody: (json: unknown) => T,
    label: string,
  ): Promise<ApiResponse<T>> {
    const { method, headers, body } = request;
    const response = await exchange(`${this.baseUrl}${request.path}`, method, headers, body);
    const { text } = response;
    const json: unknown =
      /json/.test(response.headers.get('content-type') ?? '') && text !== '' ? JSON.parse(text) : undefined;
    return new Answer(response.status, response.headers, text, json, parseBody, label);
  }
}
