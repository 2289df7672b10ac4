/**
 * dps run as a child process (its esbuild bundle under plain node) against a twin of its own,
 * through a relay that records and can lose answers: exit codes, --json output, a failed job's
 * code, a create whose answer was lost made once, a token renewed during a wait longer than its
 * lifetime (TOKEN_TTL_SECONDS=3 for this twin), an unreachable service, Ctrl-C during --wait leaving the job
 * running and saying how to follow it, and the README's dps block run as written (readme-block.ts).
 * The typed client is used for the test's own reads.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDpsClient, ok, type DpsClient } from '../../../clients/typescript/src/index';
import { DEMO_BUCKET, seedDemoBucket } from '../../../infra/local/demo';
import { freeLocalPort } from '../../../infra/local/fakes/local-server';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { closedLocalPort } from '../../support/closed-port';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { putObjects } from '../../support/imports';
import { startS3Gate, type S3Gate } from '../../support/s3-gate';
import { runReadmeDpsBlock } from './readme-block';
import { startApiRelay, type ApiRelay } from './relay';

const CSV = 'order_id,region,amount\n1,north,120.5\n2,south,80\n3,north,42\n';
const TOKEN_TTL_SECONDS = 3;
const folder = mkdtempSync(join(tmpdir(), 'dps-cli-'));

let env: TestTwin;
let gate: S3Gate;
let relay: ApiRelay;
let client: DpsClient;
let bundle: string;
/** The table the import test imported (version 1, COMPLETED). */
let importedTable: number | undefined;

beforeAll(async () => {
  const s3Port = await freeLocalPort();
  gate = await startS3Gate(`http://127.0.0.1:${s3Port}`);
  env = await startTestTwin({
    s3Port,
    buckets: ['landing', DEMO_BUCKET],
    allowOutbound: [new URL(gate.endpoint).host],
    environment: { TOKEN_TTL_SECONDS: String(TOKEN_TTL_SECONDS) },
  });
  relay = await startApiRelay(env.twin.apiUrl);
  const credentials = { clientId: env.twin.admin.client_id, clientSecret: env.twin.admin.client_secret };
  client = createDpsClient({ baseUrl: env.twin.apiUrl, credentials });
  await putObjects(env, 'landing', { 'sales/2024-01.csv': CSV, 'held/data.csv': CSV });
  // The README's block reads the demo bucket npm start seeds.
  await seedDemoBucket(env.twin.s3.endpoint);
  const { buildCli } = await import('../../../clients/cli/build.mjs');
  await buildCli();
  bundle = new URL('../../../clients/cli/dist/cli.js', import.meta.url).pathname;
});
afterAll(async () => {
  // The twin's environment stays in this process: later files of this worker get the default lifetime.
  delete process.env.TOKEN_TTL_SECONDS;
  await relay?.close();
  await env?.close();
  await gate?.close();
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts dps with the twin's admin in its environment (no config file, no arguments holding a secret). */
function start(args: readonly string[], extraEnv: Record<string, string> = {}): ChildProcess & { done: Promise<Run> } {
  const child = spawn(process.execPath, [bundle, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      DPS_CONFIG: join(folder, 'absent.json'),
      DPS_BASE_URL: relay.baseUrl,
      DPS_CLIENT_ID: env.twin.admin.client_id,
      DPS_CLIENT_SECRET: env.twin.admin.client_secret,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return Object.assign(child, { done });
}

const dps = (args: readonly string[], extraEnv?: Record<string, string>) => start(args, extraEnv).done;
const json = (run: Run): Record<string, unknown> => {
  try {
    return JSON.parse(run.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`not one JSON answer (exit ${String(run.code)}):\n${run.stdout}\n${run.stderr}`);
  }
};

/** A table over `path` of the landing bucket, made with dps (connection, data source, table). */
async function tableWithDps(path: string, endpoint = env.twin.s3.endpoint): Promise<number> {
  const name = `c-${path.replaceAll('/', '-')}${Date.now()}`;
  const connection = await dps(
    [
      'connections',
      'create',
      '--name',
      name,
      '--endpoint',
      endpoint,
      '--access-key-id',
      LOCAL_S3_CREDENTIALS.accessKeyId,
      '--json',
    ],
    { DPS_SECRET_ACCESS_KEY: LOCAL_S3_CREDENTIALS.secretAccessKey },
  );
  expect(connection.code, connection.stderr).toBe(0);
  const source = await dps([
    'data-sources',
    'create',
    '--name',
    name,
    '--connection',
    String(json(connection).id),
    '--path',
    path,
    '--json',
  ]);
  expect(source.code, source.stderr).toBe(0);
  const table = await dps(['tables', 'create', '--name', name, '--data-source', String(json(source).id), '--json']);
  expect(table.code, table.stderr).toBe(0);
  return json(table).id as number;
}

describe('dps', () => {
  it('answers usage errors with exit code 2 and refusals with 3, the catalogue code and message', async () => {
    expect((await dps(['tables', 'get'])).code).toBe(2);
    const notNumber = await dps(['tables', 'get', 'first']);
    expect(notNumber.code).toBe(2);
    expect(notNumber.stderr).toContain('table-id must be a whole number');
    expect((await dps(['nonsense'])).code).toBe(2);
    const missing = await dps(['connections', 'get', '987654', '--json']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/refused \(404\) 10-404: /);
    expect(json(missing)).toMatchObject({ code: '10-404', status: 404 });
  });

  it('exits 1 saying so when the service cannot be reached', async () => {
    const closed = await closedLocalPort();
    try {
      const unreachable = await dps(['connections', 'list'], { DPS_BASE_URL: `${closed.url}/api/data/v1` });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toBe('dps: the service could not be reached (ECONNREFUSED)\n');
    } finally {
      await closed.release();
    }
  });

  it('imports a table with --json, printing progress as plain lines when not on a terminal', async () => {
    const tableId = await tableWithDps('landing/sales/');
    const imported = await dps(['tables', 'import', String(tableId), '--interval', '200', '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(json(imported)).toMatchObject({
      data_table_id: tableId,
      execution: { status: 'COMPLETED' },
      metadata: { row_count: 3 },
    });
    expect(imported.stderr).toMatch(new RegExp(`^import ${tableId} 1: COMPLETED DONE 100%`, 'm'));
    importedTable = tableId;
    const listed = await dps(['tables', 'list', '--filter', `id eq ${tableId}`]);
    expect(listed.stdout).toMatch(/^ID\s+NAME/);
  });

  it('goes from an imported table to an exported result: recipe from a .sql file, dataset, run, release, target, export', async () => {
    const tableId = importedTable ?? (await tableWithDps('landing/sales/'));
    if (importedTable === undefined)
      expect((await dps(['tables', 'import', String(tableId), '--interval', '200'])).code).toBe(0);
    const sql = join(folder, 'by-region.sql');
    writeFileSync(sql, 'SELECT region, sum(amount) AS total FROM sales GROUP BY region\n');
    const recipe = json(
      await dps(['recipes', 'create', '--name', 'by region', '--alias', 'sales', '--sql', sql, '--json']),
    );
    const dataset = json(await dps(['datasets', 'create', '--name', 'regions', '--json']));
    const [datasetId, recipeId] = [String(dataset.id), String(recipe.id)];
    const tableNode = json(await dps(['datasets', 'add-node', datasetId, '1', '--table', String(tableId), '--json']));
    const recipeNode = json(
      await dps([
        'datasets',
        'add-node',
        datasetId,
        '1',
        '--recipe',
        recipeId,
        '--recipe-version',
        '1',
        '--source',
        `${String(tableNode.id)}=sales`,
        '--json',
      ]),
    );
    const ran = await dps(['datasets', 'run', datasetId, '1', String(recipeNode.id), '--interval', '200', '--json']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(json(ran)).toMatchObject({ run_state: 'SUCCEEDED', execution: { status: 'COMPLETED' } });
    expect((await dps(['datasets', 'release', datasetId, '1', '--json'])).code).toBe(0);
    const writable = await dps(
      [
        'connections',
        'create',
        '--name',
        `out-${datasetId}`,
        '--endpoint',
        env.twin.s3.endpoint,
        '--access-key-id',
        'S3RVER',
        '--write',
        '--json',
      ],
      { DPS_SECRET_ACCESS_KEY: 'S3RVER' },
    );
    const target = json(
      await dps([
        'targets',
        'create',
        '--name',
        `out-${datasetId}`,
        '--connection',
        String(json(writable).id),
        '--path',
        'landing/exports/{dataset_name}/',
        '--json',
      ]),
    );
    const exported = await dps([
      'exports',
      'create',
      '--target',
      String(target.id),
      '--dataset',
      datasetId,
      '--source-version',
      '1',
      '--format',
      'csv',
      '--interval',
      '200',
      '--json',
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(json(exported)).toMatchObject({ source_name: 'regions', execution: { status: 'COMPLETED' } });
  });

  it('says a failed job’s code and exits 4', async () => {
    const tableId = await tableWithDps('landing/nothing-here/');
    const failed = await dps(['tables', 'import', String(tableId), '--interval', '200']);
    expect(failed.code).toBe(4);
    expect(failed.stderr).toMatch(/job FAILED 30-1114: /);
  });

  it('makes one connection when the answer to its create is lost and the create is retried', async () => {
    const name = `retried-${Date.now()}`;
    relay.dropNextAnswer('POST', '/connections');
    const created = await dps(
      [
        'connections',
        'create',
        '--name',
        name,
        '--endpoint',
        env.twin.s3.endpoint,
        '--access-key-id',
        'S3RVER',
        '--json',
      ],
      { DPS_SECRET_ACCESS_KEY: 'S3RVER' },
    );
    expect(created.code, created.stderr).toBe(0);
    const creates = relay.passed.filter((seen) => seen.method === 'POST' && seen.path.endsWith('/connections'));
    const [lost, retried] = creates.slice(-2);
    expect(lost).toMatchObject({ status: 201, dropped: true });
    expect(retried).toMatchObject({ status: 201, dropped: false, idempotencyKey: lost!.idempotencyKey });
    const same = await ok(client.api.GET('/connections', { params: { query: { filter: `name eq '${name}'` } } }));
    expect(same.total).toBe(1);
    expect(json(created).id).toBe(same.items[0]!.id);
  });

  it('renews its token during a wait longer than the token lasts, and on Ctrl-C stops waiting, not the job', async () => {
    const tableId = await tableWithDps('landing/held/', gate.endpoint);
    const held = gate.holdRead('/held/data.csv');
    const exchangesBefore = relay.passed.filter((seen) => seen.path.endsWith('/oauth/token')).length;
    const waiting = start(['tables', 'import', String(tableId), '--interval', '250']);
    await held.arrived;
    // Past one token lifetime: the polls go on with a renewed token, never a 401.
    await new Promise((resolve) => setTimeout(resolve, (TOKEN_TTL_SECONDS + 1) * 1000));
    expect(
      relay.passed.filter((seen) => seen.path.endsWith('/oauth/token')).length - exchangesBefore,
    ).toBeGreaterThanOrEqual(2);
    // Polls of this import answered after the renewal: the wait went on past the first token's lifetime.
    const renewedAt = relay.passed
      .map((seen) => seen.path)
      .lastIndexOf(relay.passed.find((seen) => seen.path.endsWith('/oauth/token'))!.path);
    const polls = relay.passed
      .slice(renewedAt)
      .filter((seen) => seen.path.endsWith(`/data-tables/${tableId}/versions/1`));
    expect(polls.filter((seen) => seen.status === 200).length).toBeGreaterThan(0);
    waiting.kill('SIGINT');
    const run = await waiting.done;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(`Follow it with: dps wait import ${tableId} 1`);
    const version = await ok(
      client.api.GET('/data-tables/{data_table_id}/versions/{version_number}', {
        params: { path: { data_table_id: tableId, version_number: 1 } },
      }),
    );
    expect(['PENDING', 'IN_PROGRESS']).toContain(version.execution.status);
    // Let the twin close quickly: the job is cancelled now that the test has seen it run on.
    await ok(
      client.api.POST('/data-tables/{data_table_id}/versions/{version_number}/cancel', {
        params: { path: { data_table_id: tableId, version_number: 1 } },
      }),
    );
  });

  it(
    "runs the README's dps block as written, for a new tenant (whose ids are a fresh stack's), to an exported result",
    { timeout: 120_000 },
    async () => {
      const platform = createDpsClient({
        baseUrl: env.twin.apiUrl,
        credentials: { clientId: env.twin.platformAdmin.client_id, clientSecret: env.twin.platformAdmin.client_secret },
      });
      const { admin_client } = await ok(
        platform.api.POST('/admin/tenants', { body: { tenant_id: 'readme-dps', name: 'README', description: null } }),
      );
      const credentials = { clientId: admin_client.client_id, clientSecret: admin_client.client_secret ?? '' };
      const work = mkdtempSync(join(folder, 'readme-'));
      const stack = { baseUrl: env.twin.apiUrl, s3Endpoint: env.twin.s3.endpoint, ...credentials };
      const run = await runReadmeDpsBlock(stack, bundle, work);
      expect(run.code, run.output).toBe(0);
      expect(run.commands).toBeGreaterThan(15);
      expect(run.calls).toHaveLength(run.commands);
      expect(run.output).not.toContain(credentials.clientSecret);

      const tenant = createDpsClient({ baseUrl: env.twin.apiUrl, credentials });
      const exported = await ok(tenant.api.GET('/exports/{export_id}', { params: { path: { export_id: 1 } } }));
      expect(exported).toMatchObject({ source_name: 'regional sales', execution: { status: 'COMPLETED' } });
      const secretFile = join(work, 'reader.secret');
      expect(statSync(secretFile).mode & 0o777).toBe(0o600);
      const secret = readFileSync(secretFile, 'utf8').trim();
      expect(secret.length).toBeGreaterThan(10);
      expect(run.output).not.toContain(secret);
      const tokens = await ok(tenant.api.GET('/tokens'));
      expect(tokens.items.map((token) => token.description)).toContain('reporting job');
    },
  );

  it('prints bash and zsh completion naming its commands', async () => {
    const bash = await dps(['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain('complete -o default -F _dps dps');
    expect(bash.stdout).toContain('"tables import"');
    expect((await dps(['completion', 'zsh'])).stdout).toContain('bashcompinit');
    expect((await dps(['completion', 'fish'])).code).toBe(2);
  });
});
