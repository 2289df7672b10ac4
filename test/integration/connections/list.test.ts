import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionCases } from '../../support/connections';
import { unchecked, type ApiClient, type CallOptions } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let api: ApiClient;
const names: string[] = [];

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor('listing', ['editor']);
  // One connection per type and auth variant, in a tenant of its own: 10 in all.
  const cases = connectionCases(env.twin.s3.endpoint);
  for (const [index, { request }] of cases.entries()) {
    const response = await api.call('createConnection', {
      body: { ...request, tags: index % 2 === 0 ? ['Even'] : ['odd'], read: index !== 3 },
    });
    expect(response.status).toBe(201);
    names.push(request.name);
  }
});
afterAll(() => env?.close());

const list = (query: CallOptions<'listConnections'>['query'] = {}) => api.call('listConnections', { query });
const filtered = (filter: string, extra: { limit?: number } = {}) => list({ filter, ...extra });
const namesOf = (items: readonly { name: string | null }[]) => items.map((item) => item.name);

describe('GET /connections', () => {
  it('returns every connection of the tenant in id order with the list envelope', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ offset: 0, limit: 10, total: 10 });
    expect(namesOf(response.body.items)).toEqual(names);
  });

  it('pages with offset and limit; limit reports the records returned', async () => {
    const page = await list({ offset: 8, limit: 5 });
    expect(page.body).toMatchObject({ offset: 8, limit: 2, total: 10 });
    expect(namesOf(page.body.items)).toEqual(names.slice(8));
    const beyond = await list({ offset: 50 });
    expect(beyond.body).toMatchObject({ offset: 50, limit: 0, total: 10, items: [] });
  });

  it('sorts by one or more keys, descending with a minus', async () => {
    const byName = await list({ sort: '-name' });
    const sorted = [...names].sort((a, b) => b.localeCompare(a, 'en', { sensitivity: 'base' }));
    expect(namesOf(byName.body.items)).toEqual(sorted);
    const byTypeThenId = await list({ sort: 'type,-id' });
    const items = byTypeThenId.body.items;
    for (let i = 1; i < items.length; i += 1) {
      const [a, b] = [items[i - 1]!, items[i]!];
      expect(a.type < b.type || (a.type === b.type && a.id > b.id)).toBe(true);
    }
  });

  it('filters with the documented grammar', async () => {
    expect((await filtered("type eq 'warehouse'")).body.total).toBe(2);
    expect((await filtered("type eq 'warehouse' or type eq 'pricing_dim'")).body.total).toBe(3);
    expect((await filtered("name co 'SECRET_KEY'")).body.total).toBe(1);
    expect((await filtered("name sw 'cloud_store/'")).body.total).toBe(2);
    expect((await filtered("tags co 'even'")).body.total).toBe(5);
    expect(namesOf((await filtered('read eq false')).body.items)).toEqual([names[3]]);
    expect((await filtered("not (type eq 'warehouse') and id le 4")).body.total).toBe(4);
    expect((await filtered('description eq null')).body.total).toBe(10);
    expect((await filtered("created_date gt '2000-01-01T00:00:00Z'", { limit: 3 })).body).toMatchObject({
      total: 10,
      limit: 3,
    });
  });

  it('refuses a malformed filter or sort with 10-1400 naming the parameter', async () => {
    const badFilters = [
      "type = 'x'",
      "nosuch eq 'x'",
      'type eq 3',
      "read co 'x'",
      "(type eq 'x'",
      "name eq 'open",
      "type eq 'x' extra",
    ];
    for (const filter of badFilters) {
      const response = await filtered(filter);
      expect(response.status, filter).toBe(400);
      expect(response.problem, filter).toMatchObject({ code: '10-1400', extraDetails: { filter: expect.any(String) } });
    }
    for (const sort of ['nosuch', 'name,,id', 'tags', 'a,b,c,d']) {
      const response = await list({ sort });
      expect(response.problem, sort).toMatchObject({ code: '10-1400', extraDetails: { sort: expect.any(String) } });
    }
  });

  it('validates offset, limit and unknown parameters', async () => {
    const response = await list(unchecked({ offset: -1, limit: 1001, colour: 'red' }));
    expect(response.status).toBe(400);
    expect(response.problem.extraDetails).toEqual({
      offset: 'must be ≥ 0',
      limit: 'must be ≤ 1000',
      colour: 'is not a known field',
    });
    expect((await list({ limit: 'ten' })).problem.extraDetails).toEqual({ limit: 'must be an integer' });
  });

  it('lists only the caller’s tenant', async () => {
    const other = await env.clientFor('listing-other', ['viewer']);
    expect((await other.call('listConnections')).body).toMatchObject({ total: 0, items: [] });
  });
});
