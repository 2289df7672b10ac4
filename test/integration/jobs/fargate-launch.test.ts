/**
 * Where a job runs (issue 39): `auto` lets the state machine choose by what the job knows of
 * its inputs against FARGATE_ABOVE_BYTES; a tenant admin may force Lambda or a task on every
 * engine job's start, anyone else is refused; a job that calls a system its tasks cannot reach
 * stays on Lambda. What each job gives on a task is fargate.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../../support/api-client';
import type { TestTwin } from '../../support/harness';
import { asBody, unchecked } from '../../support/api-client';
import { localS3 } from '../../support/exports';
import {
  createObjectStoreConnection,
  importAndWait,
  tableOver,
  waitForJob,
  waitForVersion,
} from '../../support/imports';
import {
  closeFargateStack,
  engineJobStarts,
  exportToNewTarget,
  NEVER,
  PEOPLE_CSV,
  pricingHosts,
  startFargateStack,
} from './fargate-support';
import { dimConnection, pricingTarget, transferAndWait, type TransferStack } from '../transfers/fixtures';

let stack: TransferStack;
let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  stack = await startFargateStack({ 'in/people.csv': PEOPLE_CSV });
  env = stack.env;
  api = env.admin;
}, 120_000);

afterAll(() => closeFargateStack(stack));

describe('where a job runs', () => {
  it('auto: the machine chooses by what the job knows of its inputs against FARGATE_ABOVE_BYTES', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const sourceBytes = Buffer.byteLength(PEOPLE_CSV);
    process.env.FARGATE_ABOVE_BYTES = String(sourceBytes);
    try {
      // The first import knows nothing of its source (0 bytes); the second, what the first read.
      const first = await importAndWait(api, tableId);
      const second = await importAndWait(api, tableId);
      expect([first.execution.runs_on, second.execution.runs_on]).toEqual(['lambda', 'fargate']);
      process.env.FARGATE_ABOVE_BYTES = String(sourceBytes + 1);
      expect((await importAndWait(api, tableId)).execution.runs_on).toBe('lambda');
    } finally {
      process.env.FARGATE_ABOVE_BYTES = NEVER;
    }
  }, 120_000);

  it('auto: an analysis and an export weigh the stored bytes of the version they read', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const version = await importAndWait(api, tableId);
    const dataBytes = version.metadata?.data_bytes ?? 0;
    expect(dataBytes).toBeGreaterThan(0);
    const params = { data_table_id: tableId, version_number: version.version_number };
    const analyse = async (depth: 'SHALLOW' | 'FULL') => {
      const started = await api.call('analyseDataVersionSchema', { params, body: { depth } });
      expect(started.status, started.text).toBe(202);
      const status = await waitForJob(
        () => api.call('getSchemaAnalysisStatus', { params }),
        (body) => body.execution,
      );
      return status.execution.runs_on;
    };
    const connectionId = await createObjectStoreConnection(api, env, { pathRestriction: 'exports/', write: true });
    let run = 0;
    const exportTo = async () => {
      const done = await exportToNewTarget(api, connectionId, `weighed-${(run += 1)}`, tableId, version.version_number);
      return done.execution.runs_on;
    };
    try {
      process.env.FARGATE_ABOVE_BYTES = String(dataBytes);
      expect([await analyse('SHALLOW'), await exportTo()]).toEqual(['fargate', 'fargate']);
      process.env.FARGATE_ABOVE_BYTES = String(dataBytes + 1);
      expect([await analyse('FULL'), await exportTo()]).toEqual(['lambda', 'lambda']);
    } finally {
      process.env.FARGATE_ABOVE_BYTES = NEVER;
    }
  }, 90_000);

  it('a tenant admin may force where a job runs; anyone else is refused, and an unknown choice is 10-1400', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const forced = await api.call('batchCreateDataVersions', {
      body: { data_table_ids: [tableId], launch: 'fargate' },
    });
    expect(forced.status, forced.text).toBe(202);
    const version = await waitForVersion(api, tableId, forced.body.results[0]!.data_version!.version_number);
    expect(version.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    const editor = await env.clientFor(env.twin.admin.tenant_id, ['editor']);
    const refused = await editor.call('batchCreateDataVersions', {
      body: { data_table_ids: [tableId], launch: 'fargate' },
    });
    expect(refused.status).toBe(403);
    expect(refused.problem).toMatchObject({ code: '10-403', extraDetails: { required_permission: 'quota:manage' } });
    expect(
      (await editor.call('batchCreateDataVersions', { body: { data_table_ids: [tableId], launch: 'auto' } })).status,
    ).toBe(202);
    const unknown = await api.call('batchCreateDataVersions', {
      body: unchecked({ data_table_ids: [tableId], launch: 'ec2' }),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.problem.code).toBe('10-1400');
  }, 120_000);

  it('every engine job’s start takes `launch` by the same rule: a tenant admin forces it, anyone else 403, an unknown value 10-1400', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const { version_number: versionNumber } = await importAndWait(api, tableId);
    const bucketConnection = await createObjectStoreConnection(api, env, { pathRestriction: 'exports/', write: true });
    const pricingConnection = await dimConnection(api, stack.dim);
    const s3 = localS3(env);
    const starts = engineJobStarts({ api, env, tableId, versionNumber, bucketConnection, pricingConnection, s3 });
    const editor = await env.clientFor(env.twin.admin.tenant_id, ['editor']);
    try {
      for (const [kind, start] of Object.entries(starts)) {
        const refused = await start(editor, 'fargate');
        expect(refused.status, `${kind}: ${refused.text}`).toBe(403);
        expect(refused.problem).toMatchObject({
          code: '10-403',
          extraDetails: { required_permission: 'quota:manage', field: 'launch' },
        });
        const unknown = await start(api, 'ec2');
        expect(unknown.status, `${kind}: ${unknown.text}`).toBe(400);
        expect(unknown.problem.code).toBe('10-1400');
        if (kind === 'analyse-node-schema') continue;
        // The threshold would keep every job on Lambda: the admin's choice sends it to a task.
        const tasksBefore = env.twin.ecs.tasks().length;
        const forced = await start(api, 'fargate');
        expect(forced.status, `${kind}: ${forced.text}`).toBe(202);
        expect(
          env.twin.ecs
            .tasks()
            .slice(tasksBefore)
            .map((task) => task.worker),
        ).toContain(kind);
      }
    } finally {
      s3.destroy();
    }
  }, 120_000);

  it('a job that calls a system its tasks cannot reach stays on Lambda; forcing it onto a task is 10-1400 naming launch', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const { version_number: versionNumber } = await importAndWait(api, tableId);
    const source = { source_type: 'datatable', source_id: tableId, source_version: versionNumber } as const;
    const refusedFor = (answer: ApiResponse<unknown>, what: string) => {
      expect(answer.status, answer.text).toBe(400);
      expect(answer.problem.code).toBe('10-1400');
      expect(answer.problem.extraDetails?.launch).toContain(what);
    };
    // An S3-compatible store that is not the stage's S3: refused before its endpoint is called.
    const direct = await api.call('startDirectExport', {
      body: asBody('startDirectExport', {
        ...source,
        bucket: 'exports',
        key: 'outside.parquet',
        endpoint: 'https://minio.example.com',
        access_key: 'outside',
        secret_key: 'outside-secret',
        launch: 'fargate',
      }),
    });
    refusedFor(direct, 'the endpoint https://minio.example.com');
    // An import from such a store: that table's result is the refusal, and no version is made.
    const outsideTable = await tableOver(api, env, 'fargate-src/in/people.csv', { endpoint: stack.relay.host });
    const imported = await api.call('batchCreateDataVersions', {
      body: { data_table_ids: [outsideTable], launch: 'fargate' },
    });
    expect(imported.status, imported.text).toBe(202);
    expect(imported.body.results[0]).toMatchObject({ status: 'REJECTED', error: { code: '10-1400', status: 400 } });
    expect(imported.body.results[0]?.data_version).toBeUndefined();

    // The pricing system, once the stage no longer names it.
    const connectionId = await dimConnection(api, stack.dim);
    const target = await pricingTarget(api, connectionId);
    delete process.env.FARGATE_TASK_OUTBOUND;
    try {
      const forced = await api.call('startTransfer', {
        body: asBody('startTransfer', { target_id: target.id, ...source, launch: 'fargate' }),
      });
      refusedFor(forced, `connection ${connectionId} (pricing_dim)`);
      const listed = await api.call('listTransfers', { query: { filter: `target_id eq ${target.id}` } });
      expect(listed.body.total).toBe(0);
      // With every job sent to a task, this one stays on Lambda; `*` (a route out) lets it go.
      process.env.FARGATE_ABOVE_BYTES = '0';
      const transferTo = async () =>
        transferAndWait(
          api,
          asBody('startTransfer', { target_id: (await pricingTarget(api, connectionId)).id, ...source }),
        );
      const onLambda = await transferTo();
      expect(onLambda.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
      process.env.FARGATE_TASK_OUTBOUND = '*';
      const onTask = await transferTo();
      expect(onTask.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    } finally {
      process.env.FARGATE_ABOVE_BYTES = NEVER;
      process.env.FARGATE_TASK_OUTBOUND = pricingHosts(stack);
    }
  }, 90_000);
});
