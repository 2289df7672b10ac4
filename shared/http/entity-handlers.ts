import type * as z from 'zod';
import type { Principal } from '../auth/principal';
import type { ListQuery } from './list-query';
import { httpHandler, type RouteHandler } from './handler';
import type { RouteResult, RouteSpec } from './route';

/**
 * The handlers of a declared entity's routes (define-entity.ts): each functions/<resource>
 * module of a list, get, update or merge is one line that names its route and its entity.
 * A route still has its own module (one Lambda function each, with its own access); only
 * what the module does is said once, here.
 */

/** A route the entity's id is read from: `{ <name>_id: number }` in its path. */
type IdRoute = RouteSpec & { readonly permission: NonNullable<RouteSpec['permission']> };

/** The body a route answers with, as the handler may give it. */
type Body<R extends RouteSpec> = RouteResult<R>['body'];

type Output<S> = S extends z.ZodType ? z.output<S> : never;

/** A merge patch body: what the route's schema checked (its required members), the rest merged and checked after. */
type Patch = Readonly<Record<string, unknown>> & { readonly id: number };

/** The id in the route's path: the route declares exactly one path parameter, the entity's id. */
function idOf(params: unknown): number {
  const values = Object.values(params as Readonly<Record<string, number>>);
  if (values.length !== 1) throw new Error('an entity route takes exactly one path parameter, its id');
  return values[0]!;
}

/** The caller of a route that requires a permission (IdRoute): httpHandler has authorized it. */
const callerOf = (principal: unknown): Principal => principal as Principal;

/** What a list or get handler does besides reading the entity. */
export interface ReadOptions {
  /** What must hold before the entity is read: a feature the tenant must have turned on (80-8001, say). */
  readonly before?: (caller: Principal) => Promise<void>;
}

/** A list route: its query is ListQuery (the declared entity's listQuery). */
type ListRoute = IdRoute & { readonly request: { readonly query: z.ZodType<ListQuery> } };

/** GET /<resources>: ListQuery over the tenant's entities (docs/list-query.md). */
export function listHandler<R extends ListRoute, P extends Body<R>>(
  route: R,
  entity: { page(tenantId: string, query: ListQuery): Promise<P> },
  options: ReadOptions = {},
): RouteHandler<R> {
  return httpHandler(route, async ({ query, principal }) => {
    const caller = callerOf(principal);
    await options.before?.(caller);
    return { body: await entity.page(caller.tenantId, query) };
  });
}

/** GET /<resources>/{id}. */
export function getHandler<R extends IdRoute, Res extends Body<R>>(
  route: R,
  entity: { get(tenantId: string, id: number): Promise<Res> },
  options: ReadOptions = {},
): RouteHandler<R> {
  return httpHandler(route, async ({ params, principal }) => {
    const caller = callerOf(principal);
    await options.before?.(caller);
    return { body: await entity.get(caller.tenantId, idOf(params)) };
  });
}

/** PUT /<resources>/{id}: a full update, the body as the route's schema read it. */
export function updateHandler<R extends IdRoute, Res extends Body<R>>(
  route: R,
  entity: { update(principal: Principal, urlId: number, document: Output<R['request']['body']>): Promise<Res> },
): RouteHandler<R> {
  return httpHandler(route, async ({ params, body, principal }) => ({
    body: await entity.update(callerOf(principal), idOf(params), body as Output<R['request']['body']>),
  }));
}

/** PATCH /<resources>/{id}: a merge patch (RFC 7396), applied as a full update. */
export function mergeHandler<R extends IdRoute, Res extends Body<R>>(
  route: R,
  entity: { merge(principal: Principal, urlId: number, patch: Patch): Promise<Res> },
): RouteHandler<R> {
  return httpHandler(route, async ({ params, body, principal }) => ({
    body: await entity.merge(callerOf(principal), idOf(params), body as Patch),
  }));
}
