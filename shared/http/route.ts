import type { z } from 'zod';
import type { Permission } from '../auth/permissions';
import type { Principal } from '../auth/principal';
import type { ErrorCode } from '../errors/catalogue';
import type { AppError } from '../errors/app-error';
import type { ResourceAccess } from '../resource-access';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Request body media types a route accepts. */
export type BodyType = 'json' | 'merge-patch' | 'form';

/**
 * One entry of the route table. The table drives the CDK API (a function per route), the
 * local HTTP server and the OpenAPI document; the handler validates with the same schemas.
 */
export interface RouteSpec {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Under /api/data/v1, with {name} path parameters (OpenAPI and API Gateway syntax). */
  readonly path: `/${string}`;
  readonly summary: string;
  readonly description?: string;
  /** Domain of the route: the OpenAPI tag and the CDK nested stack. */
  readonly tag: string;
  /** Handler module under functions/, without extension, exporting `handler`; or `module#export` (handler-ref.ts). */
  readonly handler: string;
  /** The permission the caller's token must carry; null for public routes. */
  readonly permission: Permission | null;
  readonly request: {
    readonly params?: z.ZodObject;
    readonly query?: z.ZodObject;
    readonly body?: z.ZodType;
    /** Accepted body media types; JSON when omitted. */
    readonly bodyTypes?: readonly BodyType[];
    /** The route honours an Idempotency-Key header (creates). */
    readonly idempotent?: boolean;
  };
  readonly response: {
    readonly status: 200 | 201 | 202 | 204;
    readonly description: string;
    readonly body?: z.ZodType;
  };
  /** Catalogue codes this route can answer with, besides the generic 400/401/403/500 ones. */
  readonly errors: readonly ErrorCode[];
  readonly access: ResourceAccess;
  /**
   * The handler runs DuckDB (the recipe SQL analyzer): on Lambda the engine comes from the
   * DuckDB layer instead of the bundle, and the function gets more memory, hence more CPU
   * (infra/stacks/api-domain-stack.ts). Only these routes may import @duckdb/node-api
   * (test/infra/bundles.test.ts).
   */
  readonly engine?: true;
}

/** A list envelope (spec 2.2) as a route answers it: the common one, or the recipes one. */
type ListEnvelopeBody = { readonly items: readonly unknown[] } & (
  { readonly total: number } | { readonly total_count: number }
);

/** The ListQuery parameters (spec 2.2) every list takes. */
type ListQueryKey = 'offset' | 'limit' | 'sort' | 'filter';

/** Where a list route declared without ListQuery fails to compile; the property's name says why. */
interface ListQueryRequired {
  readonly 'a route answering a list envelope takes ListQuery (spec 2.2): offset, limit, sort and filter': never;
}

/**
 * Spec 2.2: every list takes ListQuery. A route whose answer is a list envelope must declare a
 * query with offset, limit, sort and filter (listQuery(fields) of shared/model/common.ts), or
 * it does not compile: a list can no longer be added that refuses `?limit=` as unknown
 * (issue 38). test/integration/api/list-routes.test.ts asks every such route at run time.
 */
type ListRule<T extends RouteSpec> = T['response']['body'] extends z.ZodType
  ? z.output<T['response']['body']> extends ListEnvelopeBody
    ? T['request']['query'] extends z.ZodType
      ? ListQueryKey extends keyof z.output<T['request']['query']>
        ? unknown
        : { readonly request: { readonly query: ListQueryRequired } }
      : { readonly request: { readonly query: ListQueryRequired } }
    : unknown
  : unknown;

export function defineRoute<const T extends RouteSpec>(spec: T & ListRule<T>): T {
  return spec;
}

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteRequest<R extends RouteSpec> {
  readonly params: Output<R['request']['params']>;
  readonly query: Output<R['request']['query']>;
  readonly body: Output<R['request']['body']>;
  /** The authenticated caller; absent only on public routes. */
  readonly principal: R['permission'] extends Permission ? Principal : undefined;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly idempotencyKey: string | undefined;
  readonly traceId: string;
  /** Aborted when the function's time is up (the answer is then given): work that can outlive it listens. */
  readonly signal: AbortSignal;
  /** When `signal` aborts, as Date.now() time: work that waits (for an engine slot) stops waiting in time to answer. */
  readonly deadline: number;
  /**
   * Says the request now waits on an external system: should the time run out, the answer is
   * `timeOut`, that system's time-out code (a 4xx: the caller named the system; made by
   * shared/connectors/time-limit.ts), not 10-500.
   */
  readonly waitOn: (timeOut: AppError | undefined) => void;
}

export interface RouteResult<R extends RouteSpec> {
  readonly status?: number;
  readonly body: R['response']['body'] extends z.ZodType ? z.input<R['response']['body']> : undefined;
  readonly headers?: Readonly<Record<string, string>>;
}

/** API Gateway path template → regular expression with named groups. */
export function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      const parameter = /^\{([a-z_][a-z0-9_]*)\}$/.exec(segment);
      return parameter ? `(?<${parameter[1]}>[^/]+)` : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}
