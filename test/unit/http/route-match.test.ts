import { describe, expect, it } from 'vitest';
import { routeMatcher, type RouteTemplate } from '../../../infra/local/route-match';

const analyze = { method: 'POST', path: '/recipes/analyze' };
const byId = { method: 'POST', path: '/recipes/{recipe_id}' };

describe('the twin picks the most specific route, like API Gateway', () => {
  it.each([
    ['literal first', [analyze, byId]],
    ['parameter first', [byId, analyze]],
  ])('a literal segment beats a parameter whatever the declaration order (%s)', (_, routes: RouteTemplate[]) => {
    const match = routeMatcher(routes);
    expect(match('POST', '/recipes/analyze')).toEqual({ kind: 'matched', route: analyze, params: {} });
    expect(match('POST', '/recipes/42')).toEqual({ kind: 'matched', route: byId, params: { recipe_id: '42' } });
  });

  it('compares segment by segment, and a greedy variable comes last', () => {
    const routes = [
      { method: 'GET', path: '/{proxy+}' },
      { method: 'GET', path: '/pets/{proxy+}' },
      { method: 'GET', path: '/pets/{kind}/1' },
      { method: 'GET', path: '/pets/dog/{id}' },
      { method: 'GET', path: '/pets/dog/1' },
    ];
    const match = routeMatcher(routes);
    const picked = (path: string) => {
      const found = match('GET', path);
      return found?.kind === 'matched' ? [found.route.path, found.params] : found;
    };
    expect(picked('/pets/dog/1')).toEqual(['/pets/dog/1', {}]);
    expect(picked('/pets/dog/2')).toEqual(['/pets/dog/{id}', { id: '2' }]);
    expect(picked('/pets/cat/1')).toEqual(['/pets/{kind}/1', { kind: 'cat' }]);
    expect(picked('/pets/cat/2')).toEqual(['/pets/{proxy+}', { proxy: 'cat/2' }]);
    expect(picked('/toys/ball')).toEqual(['/{proxy+}', { proxy: 'toys/ball' }]);
  });

  it('matches only routes of the request method; no match leaves it to the $default route', () => {
    const match = routeMatcher([analyze, { method: 'GET', path: '/recipes/{recipe_id}' }]);
    expect(match('GET', '/recipes/analyze')).toMatchObject({ kind: 'matched', params: { recipe_id: 'analyze' } });
    expect(match('DELETE', '/recipes/analyze')).toBeUndefined();
    expect(match('POST', '/recipes/analyze/more')).toBeUndefined();
    expect(match('POST', '/recipes/')).toBeUndefined();
  });

  it('decodes parameters once and literals before comparing; undecodable parameters are named', () => {
    const match = routeMatcher([analyze, byId]);
    expect(match('POST', '/recipes/anal%79ze')).toMatchObject({ route: analyze });
    expect(match('POST', '/recipes/a%20b%2525')).toMatchObject({ params: { recipe_id: 'a b%25' } });
    for (const bad of ['%zz', '%', '%E0%A4%A', '%FF', '%ED%A0%80']) {
      expect(match('POST', `/recipes/${bad}`)).toEqual({ kind: 'badEncoding', route: byId, parameters: ['recipe_id'] });
    }
  });
});
