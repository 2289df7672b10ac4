/**
 * The Fargate branch on the twin (issue 39): with FARGATE_ABOVE_BYTES at 0 every job's state
 * machine chooses `ecs:runTask.sync`, and the local ECS runs the worker's task entry point
 * (functions/jobs/fargate-task.ts) as a process of its own. Each job kind gives on that path what
 * it gives on Lambda, value for value.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../../support/api-client';
import type { TestTwin } from '../../support/harness';
import { asBody, unchecked } from '../../support/api-client';
import { getObject, listKeys, localS3, waitForDirectExport, waitForMultiPartExport } from '../../support/exports';
import { completedUpload, incompressibleParquet, presignedUpload } from '../../support/multi-part';
import {
  createObjectStoreConnection,
  importAndWait,
  putObjects,
  startImport,
  tableOver,
  waitForJob,
  waitForVersion,
} from '../../support/imports';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { CUSTOMERS_CSV, executeAndWait, importedTable, joinGraph, nodeAt, ordersCsv } from '../datasets/run-fixtures';
import {
  dimConnection,
  pricingTarget,
  startTransferStack,
  transferAndWait,
  type TransferStack,
} from '../transfers/fixtures';

let stack: TransferStack;
let env: TestTwin;
let api: ApiClient;
const NEVER = String(Number.MAX_SAFE_INTEGER);
/** Enough rows that an import on a task is still running when the test stops it. */
const BIG_ROWS = 600_000;
/** Rows of a source whose Parquet (~6.5 MiB) an export cuts into two S3 parts: 5 MiB and the rest. */
const TWO_PART_ROWS = 100_000;
const PEOPLE_CSV = 'id,name,score\n1,ada,3.5\n2,grace,4.25\n3,linus,\n';

function bigCsv(rows: number): string {
  const lines = ['id,label,amount'];
  for (let id = 1; id <= rows; id += 1) lines.push(`${id},row-${id % 977},${(id * 13) % 1000}.25`);
  return `${lines.join('\n')}\n`;
}

/** True while a process of that id lives. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` until it answers a value, for at most `ms`. */
async function until<T>(check: () => Promise<T | undefined> | T | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts a Fargate import of the big file and answers its version and its task's process once it runs. */
async function runningBigImport(tableId: number): Promise<{ versionNumber: number; pid: number; scratch: string }> {
  process.env.FARGATE_ABOVE_BYTES = '0';
  const before = env.twin.ecs.tasks().length;
  const versionNumber = await startImport(api, tableId);
  process.env.FARGATE_ABOVE_BYTES = NEVER;
  const task = await until(
    async () => {
      const found = env.twin.ecs.tasks()[before];
      if (found?.pid === undefined) return undefined;
      const version = await api.call('getDataVersion', {
        params: { data_table_id: tableId, version_number: versionNumber },
      });
      return version.body.execution.status === 'IN_PROGRESS' ? found : undefined;
    },
    30_000,
    'the import task running',
  );
  return { versionNumber, pid: task.pid!, scratch: task.scratch };
}

/** The pricing fake's host and token server, as FARGATE_TASK_OUTBOUND names them. */
function pricingHosts(): string {
  return [stack.dim.host, stack.dim.tokenUrl].map((url) => `127.0.0.1:${new URL(url).port}`).join(',');
}

/** Exports a version through a new bucket target over `connectionId` writing to `exports/<folder>/`; answers the finished export. */
async function exportToNewTarget(connectionId: number, folder: string, tableId: number, versionNumber: number) {
  const target = await api.call('createTarget', {
    body: asBody('createTarget', {
      name: folder,
      type: 'bucket',
      connection_id: connectionId,
      path: `exports/${folder}/`,
    }),
  });
  expect(target.status, target.text).toBe(201);
  const started = await api.call('createExport', {
    body: asBody('createExport', {
      target_id: target.body.id,
      source_type: 'datatable',
      source_id: tableId,
      source_version: versionNumber,
    }),
  });
  expect(started.status, started.text).toBe(202);
  return waitForJob(
    () => api.call('getExport', { params: { export_id: started.body.export_id } }),
    (body) => body.execution,
  );
}

/** Runs `start` with every job on Lambda, then with every job on Fargate. */
async function bothPaths<T>(start: () => Promise<T>): Promise<{ lambda: T; fargate: T }> {
  process.env.FARGATE_ABOVE_BYTES = NEVER;
  const lambda = await start();
  process.env.FARGATE_ABOVE_BYTES = '0';
  const fargate = await start();
  process.env.FARGATE_ABOVE_BYTES = NEVER;
  return { lambda, fargate };
}

beforeAll(async () => {
  // A twin that may reach the pricing system's fake, with transfers on: every job kind has its test here.
  stack = await startTransferStack({
    buckets: ['fargate-src', 'landing', 'exports', 'uploads'],
    fargateAboveBytes: Number(NEVER),
  });
  env = stack.env;
  api = env.admin;
  // The pricing system is outside the stage: its tasks reach it only where the stage says so.
  process.env.FARGATE_TASK_OUTBOUND = pricingHosts();
  await putObjects(env, 'fargate-src', {
    'in/people.csv': PEOPLE_CSV,
    'big/rows.csv': bigCsv(BIG_ROWS),
    'two-parts/data.parquet': await incompressibleParquet(TWO_PART_ROWS),
  });
}, 60_000);

afterAll(async () => {
  delete process.env.FARGATE_TASK_OUTBOUND;
  await stack?.close();
});

describe('jobs on the Fargate branch', () => {
  it('imports a version on a task, with the values of the Lambda import', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const { lambda, fargate } = await bothPaths(() => importAndWait(api, tableId));
    expect(lambda.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
    expect(fargate.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    const preview = (versionNumber: number) =>
      api.call('previewDataVersion', { params: { data_table_id: tableId, version_number: versionNumber } });
    const [a, b] = [await preview(lambda.version_number), await preview(fargate.version_number)];
    expect(b.status).toBe(200);
    expect({ ...b.body, version_number: 0 }).toEqual({ ...a.body, version_number: 0 });
    expect(env.twin.ecs.tasks().map((task) => task.worker)).toEqual(['import-data-version']);
  }, 60_000);

  it('analyses a version’s schema on a task as on Lambda', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    // Two versions of the same data: a version is analysed fully once.
    const versions = [
      (await importAndWait(api, tableId)).version_number,
      (await importAndWait(api, tableId)).version_number,
    ];
    let next = 0;
    const { lambda, fargate } = await bothPaths(async () => {
      const params = { data_table_id: tableId, version_number: versions[next++]! };
      const started = await api.call('analyseDataVersionSchema', { params, body: { depth: 'FULL' } });
      expect(started.status, started.text).toBe(202);
      const status = await waitForJob(
        () => api.call('getSchemaAnalysisStatus', { params }),
        (body) => body.execution,
      );
      return { status, result: (await api.call('getSchemaAnalysisResult', { params })).body };
    });
    expect(lambda.status.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
    expect(fargate.status.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    const stable = (result: unknown) =>
      JSON.parse(JSON.stringify(result).replace(/"[a-z_]*(date|job_id)":"[^"]*"/g, '"x":0'));
    expect(stable(fargate.result)).toEqual(stable(lambda.result));
  }, 60_000);

  it('runs a recipe node and analyses it on a task as on Lambda', async () => {
    const tables = {
      orders: await importedTable(api, env, ordersCsv(500)),
      customers: await importedTable(api, env, CUSTOMERS_CSV),
    };
    // A graph for each path: a node is analysed fully once.
    const graphs = [await joinGraph(api, tables), await joinGraph(api, tables)];
    let next = 0;
    const { lambda, fargate } = await bothPaths(async () => {
      const graph = graphs[next++]!;
      const run = await executeAndWait(api, graph, graph.aggregate, false);
      const preview = await api.call('previewDatasetNode', { params: nodeAt(graph, graph.aggregate) });
      const analysed = await api.call('analyseDatasetNodeSchema', {
        params: nodeAt(graph, graph.join),
        body: { depth: 'FULL' },
      });
      expect(analysed.status, analysed.text).toBe(202);
      const analysis = await waitForJob(
        () => api.call('getDatasetNodeSchemaAnalysisStatus', { params: nodeAt(graph, graph.join), query: {} }),
        (body) => body.execution,
      );
      const result = await api.call('getDatasetNodeSchemaAnalysisResult', { params: nodeAt(graph, graph.join) });
      return { run, preview: preview.body, analysis, result: result.body };
    });
    expect(lambda.run.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
    expect(fargate.run.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    expect(fargate.analysis.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    // The same rows and columns; the graphs are two datasets, so their ids differ.
    const rowsOf = (preview: object) =>
      Object.fromEntries(Object.entries(preview).filter(([key]) => !key.endsWith('_id')));
    expect(rowsOf(fargate.preview)).toEqual(rowsOf(lambda.preview));
    const stable = (result: unknown) =>
      JSON.parse(JSON.stringify(result).replace(/"[a-z_]*(date|job_id)":"[^"]*"/g, '"x":0'));
    expect(stable(fargate.result)).toEqual(stable(lambda.result));
  }, 120_000);

  it('exports a version directly and to a target on a task, byte for byte as on Lambda', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const { version_number: versionNumber } = await importAndWait(api, tableId);
    let run = 0;
    const direct = await bothPaths(async () => {
      const key = `direct/${(run += 1)}.parquet`;
      const started = await api.call('startDirectExport', {
        body: asBody('startDirectExport', {
          source_type: 'datatable',
          source_id: tableId,
          source_version: versionNumber,
          bucket: 'exports',
          key,
          endpoint: env.twin.s3.endpoint,
          access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
          secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
        }),
      });
      expect(started.status, started.text).toBe(202);
      const status = await waitForDirectExport(api, started.body.job_id);
      return { status, bytes: await getObject(env, 'exports', key) };
    });
    expect(direct.fargate.status.status).toEqual({ status: 'COMPLETED' });
    expect(direct.fargate.bytes.equals(direct.lambda.bytes)).toBe(true);

    const connectionId = await createObjectStoreConnection(api, env, { pathRestriction: 'exports/', write: true });
    const toTarget = await bothPaths(async () => {
      const done = await exportToNewTarget(connectionId, `target-${(run += 1)}`, tableId, versionNumber);
      const keys = await listKeys(env, 'exports', `target-${run}/`);
      expect(keys).toHaveLength(1);
      return { done, bytes: await getObject(env, 'exports', keys[0]!) };
    });
    expect(toTarget.fargate.done.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    expect(toTarget.lambda.done.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
    expect(toTarget.fargate.bytes.equals(toTarget.lambda.bytes)).toBe(true);
    expect(env.twin.ecs.tasks().map((task) => task.worker)).toEqual(
      expect.arrayContaining(['export-direct', 'export-to-target']),
    );
  }, 120_000);

  it('exports a version in two parts on a task, part for part as on Lambda', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/two-parts/');
    const { version_number: versionNumber } = await importAndWait(api, tableId);
    const s3 = localS3(env);
    let run = 0;
    try {
      const { lambda, fargate } = await bothPaths(async () => {
        const key = `multi/${(run += 1)}.parquet`;
        const { uploadId, urls } = await presignedUpload(s3, 'uploads', key, 2);
        const started = await api.call('startMultiPartExport', {
          body: asBody('startMultiPartExport', {
            source_type: 'datatable',
            source_id: tableId,
            source_version: versionNumber,
            parts_urls: urls,
          }),
        });
        expect(started.status, started.text).toBe(202);
        const status = await waitForMultiPartExport(api, started.body.job_id);
        expect(status, JSON.stringify(status)).toMatchObject({ status: 'COMPLETED', parts: 2 });
        const bytes = await completedUpload(env, s3, { bucket: 'uploads', key, uploadId }, status.result);
        return { result: status.result, bytes };
      });
      // Two parts, the first of S3's least 5 MiB: the same ETags (MD5s of the parts), the same object.
      expect(fargate.result.map((part) => part.part_number)).toEqual([1, 2]);
      expect(fargate.result).toEqual(lambda.result);
      expect(fargate.bytes.length).toBeGreaterThan(5 * 2 ** 20);
      expect(fargate.bytes.equals(lambda.bytes)).toBe(true);
      expect(env.twin.ecs.tasks().map((task) => task.worker)).toContain('export-multi-part');
    } finally {
      s3.destroy();
    }
  }, 120_000);

  it('transfers a version to the pricing system on a task, row for row as on Lambda', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const { version_number: versionNumber } = await importAndWait(api, tableId);
    const connectionId = await dimConnection(api, stack.dim);
    const { lambda, fargate } = await bothPaths(async () => {
      const target = await pricingTarget(api, connectionId);
      const done = await transferAndWait(
        api,
        asBody('startTransfer', {
          target_id: target.id,
          source_type: 'datatable',
          source_id: tableId,
          source_version: versionNumber,
        }),
      );
      const committed =
        target.type === 'pricing' ? stack.dim.committed(target.project_path, target.table_path) : undefined;
      return { done, committed };
    });
    expect(lambda.done.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
    expect(fargate.done.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    expect(fargate.done).toMatchObject({ rows_total: 3, rows_sent: 3, rows_accepted: 3 });
    expect(fargate.done.columns).toEqual(lambda.done.columns);
    expect(fargate.committed?.rows).toHaveLength(3);
    expect(fargate.committed).toEqual(lambda.committed);
    expect(env.twin.ecs.tasks().map((task) => task.worker)).toContain('transfer-to-pricing');
  }, 90_000);

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
  }, 60_000);

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
      const done = await exportToNewTarget(connectionId, `weighed-${(run += 1)}`, tableId, version.version_number);
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
  }, 60_000);

  it('every engine job’s start takes `launch` by the same rule: a tenant admin forces it, anyone else 403, an unknown value 10-1400', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const { version_number: versionNumber } = await importAndWait(api, tableId);
    const source = { source_type: 'datatable', source_id: tableId, source_version: versionNumber } as const;
    const bucketConnection = await createObjectStoreConnection(api, env, { pathRestriction: 'exports/', write: true });
    const pricingConnection = await dimConnection(api, stack.dim);
    const s3 = localS3(env);
    let run = 0;
    /** Each start route of an engine job: it starts the job with `launch` and, when accepted, waits for its end. */
    const starts: Record<string, (client: ApiClient, launch: unknown) => Promise<ApiResponse<unknown>>> = {
      'export-direct': async (client, launch) => {
        const started = await client.call('startDirectExport', {
          body: unchecked({
            ...source,
            bucket: 'exports',
            key: `forced/${(run += 1)}.parquet`,
            endpoint: env.twin.s3.endpoint,
            access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
            secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
            launch,
          }),
        });
        if (started.status === 202) await waitForDirectExport(api, started.body.job_id);
        return started;
      },
      'export-multi-part': async (client, launch) => {
        const { urls } = await presignedUpload(s3, 'uploads', `forced/${(run += 1)}.parquet`, 1);
        const started = await client.call('startMultiPartExport', {
          body: unchecked({ ...source, parts_urls: urls, launch }),
        });
        if (started.status === 202) await waitForMultiPartExport(api, started.body.job_id);
        return started;
      },
      'export-to-target': async (client, launch) => {
        const target = await api.call('createTarget', {
          body: asBody('createTarget', {
            name: `forced-${(run += 1)}`,
            type: 'bucket',
            connection_id: bucketConnection,
            path: `exports/forced-${run}/`,
          }),
        });
        const started = await client.call('createExport', {
          body: unchecked({ target_id: target.body.id, ...source, launch }),
        });
        if (started.status === 202)
          await waitForJob(
            () => api.call('getExport', { params: { export_id: started.body.export_id } }),
            (body) => body.execution,
          );
        return started;
      },
      'transfer-to-pricing': async (client, launch) => {
        const target = await pricingTarget(api, pricingConnection);
        const started = await client.call('startTransfer', {
          body: unchecked({ target_id: target.id, ...source, launch }),
        });
        if (started.status === 202)
          await waitForJob(
            () => api.call('getTransfer', { params: { transfer_id: started.body.transfer_id } }),
            (body) => body.execution,
          );
        return started;
      },
      'analyse-schema': async (client, launch) => {
        const params = { data_table_id: tableId, version_number: versionNumber };
        const started = await client.call('analyseDataVersionSchema', {
          params,
          body: unchecked({ depth: 'SHALLOW', launch }),
        });
        if (started.status === 202)
          await waitForJob(
            () => api.call('getSchemaAnalysisStatus', { params }),
            (body) => body.execution,
          );
        return started;
      },
      // Refused before the node is looked for: no node is needed to see the rule.
      'analyse-node-schema': (client, launch) =>
        client.call('analyseDatasetNodeSchema', {
          params: { dataset_id: 999_999, version_number: 1, node_id: 1 },
          body: unchecked({ depth: 'SHALLOW', launch }),
        }),
    };
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
      process.env.FARGATE_TASK_OUTBOUND = pricingHosts();
    }
  }, 90_000);

  it('a task killed with SIGKILL mid-run ends FAILED 10-500 saying so, with no scratch files and no data', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/big/rows.csv');
    const { versionNumber, pid, scratch } = await runningBigImport(tableId);
    process.kill(pid, 'SIGKILL');
    const version = await waitForVersion(api, tableId, versionNumber);
    expect(version.execution).toMatchObject({
      status: 'FAILED',
      runs_on: 'fargate',
      error: { code: '10-500', cause: expect.stringMatching(/exit code 137 \(killed\)/) },
    });
    expect(existsSync(scratch)).toBe(false);
    const preview = await api.call('previewDataVersion', {
      params: { data_table_id: tableId, version_number: versionNumber },
    });
    expect(preview.status).not.toBe(200);
  }, 90_000);

  it('cancelling a job stops its task’s process within seconds', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/big/rows.csv');
    const { versionNumber, pid, scratch } = await runningBigImport(tableId);
    const cancelled = await api.call('cancelDataVersionImport', {
      params: { data_table_id: tableId, version_number: versionNumber },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const stoppedAt = Date.now();
    await until(() => (alive(pid) ? undefined : true), 5_000, 'the task process ended');
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    await until(() => (existsSync(scratch) ? undefined : true), 5_000, 'the task scratch removed');
    expect(env.twin.ecs.tasks().find((task) => task.scratch === scratch)?.lastStatus).toBe('STOPPED');
    expect((await waitForVersion(api, tableId, versionNumber)).execution.status).toBe('ABORTED');
  }, 90_000);
});
