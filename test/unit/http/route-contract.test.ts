import { describe, expect, it } from 'vitest';
import { AUTHORIZER_HANDLER, FALLBACK_HANDLER, routes } from '../../../functions/routes';
import { handlerLabel, handlerModulePath, handlerRef } from '../../../shared/http/handler-ref';

/**
 * The route table names a handler module per route; CDK deploys that module behind the
 * route's path. A module that exports another route's handler (a copy-paste slip) would
 * deploy and serve the wrong operation, so each route's module must export the handler
 * built for that very route.
 */
async function handlerOf(name: string): Promise<unknown> {
  const module = (await import(new URL(`../../../${handlerModulePath(name)}`, import.meta.url).href)) as Record<
    string,
    unknown
  >;
  return module[handlerRef(name).exportName];
}

/** The route an httpHandler carries, when the value is one. */
function routeCarriedBy(handler: unknown): unknown {
  return typeof handler === 'function' && 'route' in handler ? handler.route : undefined;
}

describe('route table and handler modules', () => {
  it.each(routes.map((route) => [route.operationId, route] as const))(
    '%s: its module exports the handler of that route',
    async (_, route) => {
      const handler = await handlerOf(route.handler);
      expect(handler, `${handlerLabel(route.handler)} exports no handler`).toBeTypeOf('function');
      const carried = routeCarriedBy(handler);
      expect(carried, `${handlerLabel(route.handler)} does not export an httpHandler`).toBeDefined();
      expect(carried, `${handlerLabel(route.handler)} serves another route`).toMatchObject({
        operationId: route.operationId,
      });
      expect(carried).toBe(route);
    },
  );

  it.each([FALLBACK_HANDLER, AUTHORIZER_HANDLER])('%s exports a handler', async (name) => {
    expect(await handlerOf(name)).toBeTypeOf('function');
  });
});
