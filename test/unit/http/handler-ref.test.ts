import { describe, expect, it } from 'vitest';
import { routes } from '../../../functions/routes';
import { handlerFunctionName, handlerLabel, handlerModulePath, handlerRef } from '../../../shared/http/handler-ref';

describe('handler references', () => {
  it('name a module and its `handler` export, or the export after #', () => {
    expect(handlerRef('connections/create')).toEqual({ module: 'connections/create', exportName: 'handler' });
    expect(handlerRef('targets/entity#list')).toEqual({ module: 'targets/entity', exportName: 'list' });
    expect(handlerModulePath('targets/entity#list')).toBe('functions/targets/entity.ts');
    expect(handlerLabel('targets/entity#list')).toBe('functions/targets/entity.ts#list');
    expect(handlerLabel('connections/create')).toBe('functions/connections/create.ts');
    expect(handlerFunctionName('targets/entity#list')).toBe('targets-entity-list');
  });

  it('are unique per route, though routes of one entity share a module', () => {
    const handlers = routes.map((route) => route.handler);
    expect(new Set(handlers).size).toBe(handlers.length);
    const entityModules = routes.filter((route) => handlerRef(route.handler).module === 'targets/entity');
    expect(entityModules.map((route) => handlerRef(route.handler).exportName).sort()).toEqual([
      'get',
      'list',
      'merge',
      'update',
    ]);
  });
});
