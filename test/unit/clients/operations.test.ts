/**
 * Every operation of the route table is callable through the typed client: the generated
 * `operations` has exactly the route table's operationIds, and each one's method and path
 * lead, in the generated `paths`, to that operation's type. The type half is checked by the type
 * checker (`npm run typecheck`, in `npm run check`, which CI runs before the tests; `npm test`
 * alone does not): an operation whose method and path reach another operation's type fails it.
 * The runtime half checks the names. test/integration/clients/resources.test.ts calls them.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { OperationId } from '../../../functions/routes';
import { routes } from '../../../functions/routes';
import { OPERATIONS, type operations, type paths } from '../../../clients/typescript/src/index';

type Operations = typeof OPERATIONS;
/** The operation type the client's `api[METHOD](path)` takes for operationId O. */
type Reached<O extends keyof Operations> = paths[Operations[O]['path']][Lowercase<Operations[O]['method']> &
  keyof paths[Operations[O]['path']]];
type Mismatches = { [O in keyof Operations]: [Reached<O>] extends [operations[O]] ? never : O }[keyof Operations];

describe('the typed client', () => {
  it('has every operation of the route table, each callable by its method and path', () => {
    expectTypeOf<keyof Operations>().toEqualTypeOf<OperationId>();
    expectTypeOf<keyof operations>().toEqualTypeOf<OperationId>();
    expectTypeOf<Mismatches>().toEqualTypeOf<never>();
    expect(Object.keys(OPERATIONS).sort()).toEqual(routes.map((route) => route.operationId).sort());
    for (const route of routes)
      expect(OPERATIONS[route.operationId as OperationId]).toEqual({ method: route.method, path: route.path });
  });
});
