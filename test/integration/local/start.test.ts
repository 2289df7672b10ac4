/**
 * `npm start` as a user meets it, run as its own process: the banner names every endpoint of
 * the stack and each answers an SDK; `npm run create-client -- --local` makes a second
 * tenant's client against the running stack with nothing copied by hand, and that tenant sees
 * none of the first's data; a taken port is one line naming it and the option to change it,
 * exit code 1; a stop removes the endpoints file, and create-client then says no stack runs.
 * `--allow-outbound host:port` lets a connection reach a server of this machine that the
 * outbound guard refuses otherwise, and `--help` prints the options.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { GetPublicKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS_FILE, LocalEndpoints } from '../../../infra/local/endpoints-file';
import { startLocalS3, type LocalS3 } from '../../../infra/local/s3';
import { startHelp } from '../../../infra/local/start-options';
import { ApiClient } from '../../support/api-client';
import { localObjectStore } from '../../support/connections';
import { exchangeToken } from '../../support/harness';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Node with tsx's loader: one process, so a signal sent to it reaches the stack itself. */
const NODE_TSX = [process.execPath, '--import', 'tsx'] as const;
const FREE_PORTS = [
  '--port',
  '0',
  '--s3-port',
  '0',
  '--dynamodb-port',
  '0',
  '--kms-port',
  '0',
  '--stepfunctions-port',
  '0',
  '--delta-sharing-port',
  '0',
  '--pricing-port',
  '0',
  '--pricing-token-port',
  '0',
];

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a project script to its end; the environment carries none of the stack's settings. */
function run(script: string, args: readonly string[]): Promise<Finished> {
  const child = spawn(NODE_TSX[0], [...NODE_TSX.slice(1), script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Starts the stack with `args` besides its data folder and ports, and resolves with its banner once it says it is up. */
function start(
  dataDir: string,
  args: readonly string[],
): Promise<{ readonly child: ChildProcess; readonly banner: string }> {
  const child = spawn(
    NODE_TSX[0],
    [...NODE_TSX.slice(1), 'infra/local/main.ts', '--data-dir', dataDir, ...FREE_PORTS, ...args],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, POWERTOOLS_LOG_LEVEL: 'SILENT' },
    },
  );
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Ctrl-C stops.')) resolve({ child, banner: stdout });
    });
    child.on('close', (code) => reject(new Error(`npm start ended (${code}) before it was up: ${stdout}${stderr}`)));
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'dps-start-'));
let stack: { readonly child: ChildProcess; readonly banner: string };
let endpoints: LocalEndpoints;
/** Two servers of the user's own on this machine: the stack is told to allow the first only. */
let ownS3: LocalS3;
let otherS3: LocalS3;
const OWN_BUCKET = 'own';

beforeAll(async () => {
  [ownS3, otherS3] = await Promise.all([
    startLocalS3({ buckets: [OWN_BUCKET] }),
    startLocalS3({ buckets: [OWN_BUCKET] }),
  ]);
  stack = await start(dataDir, ['--feature', 'connector.warehouse=off', '--allow-outbound', `127.0.0.1:${ownS3.port}`]);
  endpoints = LocalEndpoints.parse(JSON.parse(readFileSync(join(dataDir, ENDPOINTS_FILE), 'utf8')));
});
afterAll(async () => {
  if (stack?.child.exitCode === null) stack.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  await Promise.all([ownS3?.close(), otherS3?.close()]);
});

describe('npm start', () => {
  it('prints every endpoint of the stack, the walkthrough credential and the jobs it resumed', () => {
    const { banner } = stack;
    for (const [label, url] of [
      ['API', endpoints.api],
      ['API reference', endpoints.apiReference],
      ['S3', endpoints.s3],
      ['DynamoDB', endpoints.dynamodb],
      ['KMS', endpoints.kms],
      ['Step Functions', endpoints.stepFunctions],
      ['Delta Sharing', endpoints.deltaSharing],
      ['Pricing DIM', endpoints.pricingDim],
    ]) {
      expect(banner, label).toMatch(new RegExp(`^ +${label} +${url!.replace(/[.]/g, '\\.')}`, 'm'));
    }
    expect(banner).toMatch(/^ {4}CLIENT_ID=local\.[0-9a-f]+$/m);
    expect(banner).toMatch(/^ {4}CLIENT_SECRET=dps_\S+$/m);
    expect(banner).toMatch(/^ +Jobs resumed +0$/m);
    expect(endpoints.pid).toBe(stack.child.pid);
  });

  it('prints the platform admin and the toggles on and off, with what --feature changed', () => {
    const { banner } = stack;
    expect(banner).toMatch(/^ {4}PLATFORM_CLIENT_ID=platform\.[0-9a-f]+$/m);
    expect(banner).toMatch(/^ {4}PLATFORM_CLIENT_SECRET=dps_\S+$/m);
    const on = /^ +Features on +(.+)$/m.exec(banner)?.[1]?.split(', ');
    const off = /^ +Features off +(.+?)(?: {3}\(.*)?$/m.exec(banner)?.[1]?.split(', ');
    expect(on).toEqual(['connector.object_store', 'connector.cloud_store', 'connector.analytics_db']);
    expect(off).toEqual([
      'retention',
      'quota_enforcement',
      'transfers',
      'ai_assistant',
      'apps',
      'schedules',
      'delta_sharing',
      'athena',
      'data_quality',
      'openlineage',
      'connector.warehouse',
    ]);
  });

  it('refuses --feature for an unknown toggle or a feature this build lacks, in one line, exit code 2', async () => {
    for (const [feature, message] of [
      ['teleport=on', 'npm start: --feature: no toggle "teleport"; toggles are '],
      [
        'ai_assistant=on',
        'npm start: --feature ai_assistant=on: feature ai_assistant is not available in this build; it stays off',
      ],
      ['retention=maybe', 'npm start: --feature takes <toggle>=on or <toggle>=off, not "retention=maybe"'],
    ] as const) {
      const refused = await run('infra/local/main.ts', [
        '--data-dir',
        join(dataDir, 'refused'),
        ...FREE_PORTS,
        '--feature',
        feature,
      ]);
      expect(refused.code, feature).toBe(2);
      const lines = refused.stderr.trim().split('\n');
      expect(lines, feature).toHaveLength(1);
      expect(lines[0]!.startsWith(message), `${feature}: ${lines[0]}`).toBe(true);
    }
  });

  it('serves the API and an AWS SDK at each printed endpoint', async () => {
    const config = {
      region: endpoints.region,
      credentials: { accessKeyId: endpoints.accessKeyId, secretAccessKey: endpoints.secretAccessKey },
    };
    const dynamodb = new DynamoDBClient({ ...config, endpoint: endpoints.dynamodb });
    const s3 = new S3Client({ ...config, endpoint: endpoints.s3, forcePathStyle: true });
    const kms = new KMSClient({ ...config, endpoint: endpoints.kms });
    const sfn = new SFNClient({ ...config, endpoint: endpoints.stepFunctions });
    try {
      expect((await fetch(endpoints.openApi)).status).toBe(200);
      expect((await dynamodb.send(new ListTablesCommand({}))).TableNames).toContain(endpoints.tableName);
      expect(
        (await s3.send(new ListObjectsV2Command({ Bucket: 'demo' }))).Contents?.map((object) => object.Key),
      ).toEqual(['sales/2024-01.csv']);
      expect((await kms.send(new GetPublicKeyCommand({ KeyId: 'alias/dps-local-signing' }))).KeyUsage).toBe(
        'SIGN_VERIFY',
      );
      // The local Step Functions answers the operations the service uses; an unknown execution is its own error.
      const unknownExecution = 'arn:aws:states:us-east-1:000000000000:execution:none:none';
      await expect(sfn.send(new DescribeExecutionCommand({ executionArn: unknownExecution }))).rejects.toMatchObject({
        name: 'ExecutionDoesNotExist',
      });
    } finally {
      for (const client of [dynamodb, s3, kms, sfn]) client.destroy();
    }
  });

  it('serves the demo pricing DIM at the printed host, with a token from the printed token URL and client', async () => {
    const printed = /^ +Pricing DIM +\S+ +\(token URL ([^;]+); client id ([^;]+); secret ([^;]+); scope ([^;]+);/m.exec(
      stack.banner,
    );
    expect(printed?.[1]).toBe(endpoints.pricingTokenUrl);
    const [, tokenUrl = '', clientId = '', clientSecret = '', scope = ''] = printed ?? [];
    const granted = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
        scope,
      }),
    });
    expect(granted.status).toBe(200);
    const { access_token: accessToken } = (await granted.json()) as { access_token: string };
    const ping = await fetch(`${endpoints.pricingDim}/ping`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(ping.status).toBe(200);
    expect((await fetch(`${endpoints.pricingDim}/ping`)).status).toBe(401);
    for (const url of [endpoints.pricingDim, endpoints.pricingTokenUrl])
      expect(new URL(url).hostname).toBe('127.0.0.1');
  });

  it('prints every option with what it does for --help, exit code 0, without starting anything', async () => {
    const help = await run('infra/local/main.ts', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toBe(startHelp());
    expect(help.stdout).toMatch(/^ +--allow-outbound <host:port> +\S.*\(repeatable\)$/m);
  });

  it('lets connections reach a server of this machine that --allow-outbound names, and no other', async () => {
    expect(stack.banner).toMatch(new RegExp(`^ +Outbound +the demo servers and 127\\.0\\.0\\.1:${ownS3.port} `, 'm'));
    const local = new ApiClient(endpoints.api, await exchangeToken(endpoints.api, ...credentialsIn(stack.banner)));
    const allowed = await local.call('testConnection', {
      body: localObjectStore('own server', `http://127.0.0.1:${ownS3.port}`, OWN_BUCKET),
    });
    expect(allowed.status, allowed.text).toBe(200);
    // The same kind of server on another port of this machine is still refused by the outbound
    // guard: plain http only to an allowed destination (10-1008), and no loopback address (30-1130).
    const other = (scheme: string) =>
      local.call('testConnection', {
        body: localObjectStore('other server', `${scheme}://127.0.0.1:${otherS3.port}`, OWN_BUCKET),
      });
    const plain = await other('http');
    expect(plain.status).toBe(400);
    expect(plain.problem).toMatchObject({
      code: '10-1008',
      extraDetails: { 'auth.endpoint': 'must be an absolute https:// URL' },
    });
    const secure = await other('https');
    expect(secure.status).toBe(400);
    expect(secure.problem).toMatchObject({ code: '30-1130', extraDetails: { host: '127.0.0.1' } });
  });

  it('refuses a taken port in one line naming the port and the option, exit code 1', async () => {
    const apiPort = new URL(endpoints.api).port;
    const second = await run('infra/local/main.ts', [
      '--data-dir',
      join(dataDir, 'second'),
      ...FREE_PORTS,
      '--port',
      apiPort,
    ]);
    expect(second.code).toBe(1);
    expect(second.stderr.trim().split('\n')).toEqual([
      `npm start: port ${apiPort} (the HTTP API) is already in use: stop what holds it, or start on another with npm start -- --port <port> (or PORT=<port>)`,
    ]);
  });
});

describe('npm run create-client -- --local', () => {
  it("creates another tenant's client on the running stack; that tenant sees none of tenant local's data", async () => {
    const local = new ApiClient(endpoints.api, await exchangeToken(endpoints.api, ...credentialsIn(stack.banner)));
    const created = await local.call('createConnection', {
      body: {
        name: 'local only',
        type: 'object_store',
        auth: { auth_type: 'secret_key', access_key_id: 'S3RVER', secret_access_key: 'S3RVER', endpoint: endpoints.s3 },
      },
    });
    expect(created.status).toBe(201);

    const made = await run('infra/scripts/create-client.ts', [
      '--local',
      '--data-dir',
      dataDir,
      '--tenant',
      'acme',
      '--roles',
      'admin',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const client = JSON.parse(made.stdout) as {
      tenant_id: string;
      roles: string[];
      client_id: string;
      client_secret: string;
    };
    expect(client).toMatchObject({ tenant_id: 'acme', roles: ['admin'], client_id: expect.stringMatching(/^acme\./) });

    const acme = new ApiClient(
      endpoints.api,
      await exchangeToken(endpoints.api, client.client_id, client.client_secret),
    );
    expect((await acme.call('listConnections')).body).toMatchObject({ total: 0, items: [] });
    const foreign = await acme.raw('GET', `/connections/${created.body.id}`);
    expect(foreign.status).toBe(404);
    expect((await local.call('listConnections')).body.total).toBe(1);
  });
});

describe('stopping the stack', () => {
  it('removes the endpoints file; create-client --local then says no stack runs', async () => {
    const exited = new Promise<number | null>((resolve) => stack.child.on('close', resolve));
    stack.child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(join(dataDir, ENDPOINTS_FILE))).toBe(false);

    const made = await run('infra/scripts/create-client.ts', ['--local', '--data-dir', dataDir, '--tenant', 'acme']);
    expect(made.code).toBe(1);
    expect(made.stderr.trim()).toBe(
      `create-client: no local stack is running on ${dataDir}/ (${join(dataDir, ENDPOINTS_FILE)} does not exist): start one with npm start`,
    );
  });
});

/** The CLIENT_ID= and CLIENT_SECRET= lines of the banner. */
function credentialsIn(banner: string): [string, string] {
  const value = (name: string) => new RegExp(`^ +${name}=(\\S+)$`, 'm').exec(banner)?.[1] ?? '';
  return [value('CLIENT_ID'), value('CLIENT_SECRET')];
}
