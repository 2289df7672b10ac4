/**
 * Targets and tenants: every target route wants a token (10-401) and its permission (10-403),
 * another tenant's target reads as missing (10-404) and its connections cannot be written
 * through, changing nothing; no connection secret appears in an answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../../functions/routes';
import type { ApiClient, ApiResponse } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  CONNECTION_OF,
  createTarget,
  sentBack,
  targetRequest,
  writableConnection,
  type Target,
  type TargetKind,
} from './fixtures';

let env: TestTwin;
let owner: ApiClient;
let intruder: ApiClient;
let viewer: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  owner = await env.clientFor('target-owner', ['editor']);
  intruder = await env.clientFor('target-intruder', ['admin']);
  viewer = await env.clientFor('target-owner', ['viewer']);
});
afterAll(() => env?.close());

const s3 = () => env.twin.s3.endpoint;
const targetRoutes = routes.filter((route) => route.tag === 'targets');
const path = (template: string, id: number) => template.replace('{target_id}', String(id));

/** A request to each target route that would pass validation for the owner of `target`. */
function bodyFor(operationId: string, target: Target): unknown {
  switch (operationId) {
    case 'createTarget':
      return targetRequest('table', target.connection_id);
    case 'updateTarget':
      return { ...target, description: 'changed by someone' };
    case 'mergeTarget':
      return { id: target.id, lock_version: target.lock_version, type: target.type, description: 'patched by someone' };
    default:
      return undefined;
  }
}

/** Every route is walked from the route table, so the requests go out raw; answers are read as problems. */
const send = (client: ApiClient, route: (typeof targetRoutes)[number], target: Target) =>
  client.raw(route.method, path(route.path, target.id), { body: bodyFor(route.operationId, target) });
const ownersView = async (target: Target) => (await owner.call('getTarget', { params: { target_id: target.id } })).json;

describe('authentication and permissions', () => {
  it('answers 10-401 without a token on every target route', async () => {
    expect(targetRoutes.map((route) => route.operationId).sort()).toEqual([
      'createTarget',
      'deleteTarget',
      'getTarget',
      'listTargets',
      'mergeTarget',
      'updateTarget',
    ]);
    const { target } = await createTarget(owner, s3(), 'table');
    for (const route of targetRoutes) {
      const response = await send(env.anonymous, route, target);
      expect(response.status, route.operationId).toBe(401);
      expect(response.problem).toMatchObject({ code: '10-401', extraDetails: { reason: 'missing_token' } });
    }
  });

  it('lets a viewer read but not write (10-403), and changes nothing', async () => {
    const { target } = await createTarget(owner, s3(), 'table');
    const before = await ownersView(target);
    const total = (await owner.call('listTargets')).body.total;
    for (const route of targetRoutes) {
      const response = await send(viewer, route, target);
      if (route.method === 'GET') {
        expect(response.status, route.operationId).toBe(200);
      } else {
        expect(response.status, route.operationId).toBe(403);
        expect(response.problem).toMatchObject({ code: '10-403', extraDetails: { required_permission: 'data:write' } });
      }
    }
    expect(await ownersView(target)).toEqual(before);
    expect((await owner.call('listTargets')).body.total).toBe(total);
  });
});

describe('tenant isolation', () => {
  it('answers 10-404 to another tenant on every route with an id, and changes nothing', async () => {
    const { target } = await createTarget(owner, s3(), 'pricing');
    const before = await ownersView(target);
    for (const route of targetRoutes.filter((candidate) => candidate.path.includes('{'))) {
      const response = await send(intruder, route, target);
      expect(response.status, route.operationId).toBe(404);
      expect(response.problem, route.operationId).toMatchObject({
        code: '10-404',
        detail: `Entity target with ID ${target.id} not found`,
      });
    }
    expect(await ownersView(target)).toEqual(before);
    expect((await intruder.call('listTargets')).body.items.some((item) => item.name === target.name)).toBe(false);
  });

  it('does not let a target write through another tenant’s connection (10-404)', async () => {
    // Ids are per tenant: a tenant with one connection (id 1) and another's connection id 2.
    const loner = await env.clientFor('target-loner', ['editor']);
    const { target } = await createTarget(loner, s3(), 'table');
    const other = await env.clientFor('target-other', ['editor']);
    await writableConnection(other, s3(), 'warehouse/password');
    const foreign = await writableConnection(other, s3(), 'warehouse/password');
    expect([target.connection_id, foreign.id]).toEqual([1, 2]);
    const created = await loner.call('createTarget', { body: targetRequest('table', foreign.id) });
    expect(created.problem).toMatchObject({
      code: '10-404',
      detail: `Entity connection with ID ${foreign.id} not found`,
    });
    const moved = await loner.call('updateTarget', {
      params: { target_id: target.id },
      body: sentBack(target, { connection_id: foreign.id }),
    });
    expect(moved.problem).toMatchObject({
      code: '10-404',
      detail: `Entity connection with ID ${foreign.id} not found`,
    });
    // The other tenant's connection is not in use by the loner's refused writes.
    expect((await other.call('deleteConnection', { params: { connection_id: foreign.id } })).status).toBe(204);
  });
});

describe('connection secrets never appear', () => {
  it('in any target response', async () => {
    const responses: ApiResponse<unknown>[] = [];
    const secrets: string[] = [];
    for (const kind of ['bucket', 'table', 'pricing'] as const satisfies readonly TargetKind[]) {
      const connection = await writableConnection(owner, s3(), CONNECTION_OF[kind]);
      secrets.push(...connection.secrets);
      const created = await owner.call('createTarget', { body: targetRequest(kind, connection.id) });
      responses.push(created);
      const params = { target_id: created.body.id };
      responses.push(await owner.call('getTarget', { params }));
      responses.push(
        await owner.call('updateTarget', { params, body: sentBack(created.body, { description: 'put' }) }),
      );
      responses.push(
        await owner.call('mergeTarget', {
          params,
          body: { id: created.body.id, lock_version: 1, type: kind, tags: ['patched'] },
        }),
      );
    }
    responses.push(await owner.call('listTargets'));
    expect(responses.every((response) => response.status < 300)).toBe(true);
    for (const response of responses) {
      for (const secret of secrets) expect(response.text.includes(secret)).toBe(false);
      expect(response.text).not.toMatch(/auth|BEGIN (RSA )?PRIVATE KEY/);
    }
  });
});
