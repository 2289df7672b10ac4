import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../../functions/routes';
import { unchecked, type ApiClient, type ApiResponse } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  CONNECTION_OF,
  createConnection,
  createSource,
  sentBack,
  sourceRequest,
  type CreatedConnection,
  type SourceKind,
} from './fixtures';

let env: TestTwin;
let owner: ApiClient;
let intruder: ApiClient;
let viewer: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  owner = await env.clientFor('ds-owner', ['editor']);
  intruder = await env.clientFor('ds-intruder', ['admin']);
  viewer = await env.clientFor('ds-owner', ['viewer']);
});
afterAll(() => env?.close());

const s3 = () => env.twin.s3.endpoint;
const dataSourceRoutes = routes.filter((route) => route.tag === 'data-sources');
const path = (template: string, id: number) =>
  template.replace('{data_source_id}', String(id)).replace('{connection_id}', String(id));
const KINDS: readonly SourceKind[] = ['bucket', 'rdbms', 'delta_sharing', 'analytics_db'];

/** What the bodies below take from a data source (the anonymous test sends made-up values). */
interface SourceFields {
  readonly id: number;
  readonly lock_version: number;
  readonly type: string;
  readonly connection_id: number;
}

/** A request to each data-source route that would pass validation for the owner. */
function bodyFor(operationId: string, source: SourceFields): unknown {
  switch (operationId) {
    case 'createDataSource':
      return sourceRequest('bucket', source.connection_id);
    case 'updateDataSource':
      return { ...source, description: 'changed by someone' };
    case 'mergeDataSource':
      return { id: source.id, lock_version: source.lock_version, type: source.type, description: 'patched by someone' };
    case 'testRdbmsQuery':
      return { query: 'SELECT 1' };
    default:
      return undefined;
  }
}

/** Every route is walked from the route table, so the requests go out raw; answers are read as problems. */
const send = (client: ApiClient, route: (typeof dataSourceRoutes)[number], id: number, source: SourceFields) =>
  client.raw(route.method, path(route.path, id), {
    body: bodyFor(route.operationId, source),
    contentType: route.method === 'PATCH' ? 'application/merge-patch+json' : undefined,
  });

describe('authentication and permissions', () => {
  it('answers 10-401 without a token on every data-source route', async () => {
    expect(dataSourceRoutes.map((route) => route.operationId).sort()).toEqual(
      [
        'createDataSource',
        'deleteDataSource',
        'getDataSource',
        'listDataSources',
        'mergeDataSource',
        'testRdbmsQuery',
        'updateDataSource',
      ].sort(),
    );
    for (const route of dataSourceRoutes) {
      const response = await send(env.anonymous, route, 1, {
        id: 1,
        lock_version: 0,
        type: 'bucket',
        connection_id: 1,
      });
      expect(response.status, route.operationId).toBe(401);
      expect(response.problem).toMatchObject({ code: '10-401', extraDetails: { reason: 'missing_token' } });
    }
  });

  it('lets a viewer read but not write (10-403), and changes nothing', async () => {
    const { source } = await createSource(owner, s3(), 'bucket');
    for (const route of dataSourceRoutes) {
      const response = await send(viewer, route, source.id, source);
      if (route.method === 'GET') {
        expect(response.status, route.operationId).toBe(200);
      } else {
        expect(response.status, route.operationId).toBe(403);
        expect(response.problem).toMatchObject({ code: '10-403', extraDetails: { required_permission: 'data:write' } });
      }
    }
    expect((await owner.call('getDataSource', { params: { data_source_id: source.id } })).body).toEqual(source);
  });
});

describe('tenant isolation', () => {
  it('answers 10-404 to another tenant on every route with an id, and changes nothing', async () => {
    const { source } = await createSource(owner, s3(), 'rdbms');
    for (const route of dataSourceRoutes.filter((candidate) => candidate.path.includes('{'))) {
      // test-query takes a connection id: the owner's connection.
      const id = route.operationId === 'testRdbmsQuery' ? source.connection_id : source.id;
      const response = await send(intruder, route, id, source);
      expect(response.status, route.operationId).toBe(404);
      const entity = route.operationId === 'testRdbmsQuery' ? 'connection' : 'data source';
      expect(response.problem, route.operationId).toMatchObject({
        code: '10-404',
        detail: `Entity ${entity} with ID ${id} not found`,
      });
    }
    expect((await owner.call('getDataSource', { params: { data_source_id: source.id } })).body).toEqual(source);
    expect((await intruder.call('listDataSources')).body.items.some((item) => item.name === source.name)).toBe(false);
  });

  it('does not let a data source use another tenant’s connection (10-404)', async () => {
    // Ids are per tenant: a tenant with one connection (id 1) and another's connection id 2.
    const loner = await env.clientFor('ds-loner', ['editor']);
    const { source } = await createSource(loner, s3(), 'bucket');
    await createConnection(intruder, s3(), 'object_store/secret_key');
    const foreign = await createConnection(intruder, s3(), 'object_store/secret_key');
    expect([source.connection_id, foreign.id]).toEqual([1, 2]);
    const created = await loner.call('createDataSource', { body: sourceRequest('bucket', foreign.id) });
    expect(created.problem).toMatchObject({
      code: '10-404',
      detail: `Entity connection with ID ${foreign.id} not found`,
    });
    const moved = await loner.call('updateDataSource', {
      params: { data_source_id: source.id },
      body: sentBack(source, { connection_id: foreign.id }),
    });
    expect(moved.problem).toMatchObject({
      code: '10-404',
      detail: `Entity connection with ID ${foreign.id} not found`,
    });
  });
});

describe('connection secrets never appear', () => {
  const responses: ApiResponse<unknown>[] = [];
  const connections: CreatedConnection[] = [];

  beforeAll(async () => {
    for (const kind of KINDS) {
      const connection = await createConnection(owner, s3(), CONNECTION_OF[kind]);
      connections.push(connection);
      const created = await owner.call('createDataSource', { body: sourceRequest(kind, connection.id) });
      responses.push(created);
      const { id, type } = created.body;
      const params = { data_source_id: id };
      responses.push(await owner.call('getDataSource', { params }));
      responses.push(
        await owner.call('updateDataSource', { params, body: sentBack(created.body, { description: 'put' }) }),
      );
      responses.push(
        await owner.call('mergeDataSource', { params, body: { id, lock_version: 1, type, tags: ['patched'] } }),
      );
      responses.push(
        await owner.call('createDataSource', {
          body: unchecked({ ...sourceRequest(kind, connection.id), bogus: true }),
        }),
      );
    }
    responses.push(await owner.call('listDataSources'));
    responses.push(
      await owner.call('testRdbmsQuery', {
        params: { connection_id: connections[1]!.id },
        body: { query: 'SELECT 1' },
      }),
    );
  });

  it('in any data-source response', () => {
    expect(responses.length).toBe(22);
    for (const response of responses) {
      for (const secret of connections.flatMap((connection) => connection.secrets))
        expect(response.text.includes(secret)).toBe(false);
      expect(response.text).not.toMatch(/auth|BEGIN (RSA )?PRIVATE KEY/);
    }
  });
});
