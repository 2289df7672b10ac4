/**
 * Routes that declare `engine` (they analyse recipe SQL with DuckDB): the stack gives their
 * function the stage's one DuckDB layer and ENGINE_ROUTE_MEMORY_MB, and nothing else changes
 * for the other routes. A fixture route over the meta domain stands in for the recipe routes,
 * with the real jobs, so the layer is seen shared by an engine worker and an engine route.
 * Wiring only: bundling is test/infra/bundles.test.ts's subject.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes';
import { ENGINE_ROUTE_MEMORY_MB, ROUTE_MEMORY_MB } from '../../infra/stacks/api-domain-stack';
import type { RouteSpec } from '../../shared/http/route';
import { engineLayers, engineLayersOf } from './layers';
import { synthesize, workerOf, type FunctionInfo, type SynthesizedStage } from './synth';

const META_ROUTES = routes.filter((route) => route.tag === 'meta');
const ANALYSER: RouteSpec = {
  ...META_ROUTES[0]!,
  operationId: 'analyseFixture',
  path: '/fixture-analyses',
  method: 'POST',
  handler: 'meta/error-type',
  engine: true,
};

let stage: SynthesizedStage;

beforeAll(() => {
  stage = synthesize({ stage: 'engine', routes: [...META_ROUTES, ANALYSER], bundle: false });
});
afterAll(() => stage?.close());

const routeFunction = (route: RouteSpec): FunctionInfo => {
  const found = stage.functions.filter((fn) => fn.description.includes(`(${route.operationId}, `));
  expect(found).toHaveLength(1);
  return found[0]!;
};

/** The stage's DuckDB layers (one, in the root stack, where any function uses DuckDB). */
const duckDbLayers = (of: SynthesizedStage = stage) => engineLayers(of);

describe('a route that declares engine', () => {
  it('gets the stage’s DuckDB layer and more memory', () => {
    const fn = routeFunction(ANALYSER);
    expect(fn.properties.MemorySize).toBe(ENGINE_ROUTE_MEMORY_MB);
    expect(engineLayersOf(fn)).toEqual([duckDbLayers()[0]?.logicalId]);
  });

  it('shares the one layer with the engine workers', () => {
    expect(duckDbLayers()).toHaveLength(1);
    expect(duckDbLayers()[0]?.view).toBe(stage.root);
    expect(engineLayersOf(workerOf(stage, 'import-data-version'))).toEqual([duckDbLayers()[0]?.logicalId]);
  });

  it('changes nothing for the other routes', () => {
    for (const route of META_ROUTES) {
      const fn = routeFunction(route);
      expect([fn.properties.MemorySize, engineLayersOf(fn)]).toEqual([ROUTE_MEMORY_MB, []]);
    }
  });
});

describe('a stage without engine routes or workers', () => {
  it('has no DuckDB layer', () => {
    const bare = synthesize({ stage: 'bare', routes: META_ROUTES, jobs: [], bundle: false });
    try {
      expect(duckDbLayers(bare)).toEqual([]);
    } finally {
      bare.close();
    }
  });
});
