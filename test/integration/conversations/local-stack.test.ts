/**
 * The assistant on `npm start` (docs/assistant.md), run as its own process: without a model
 * the banner says the assistant is unavailable and --feature cannot turn it on; with
 * --bedrock-endpoint the stack calls that endpoint with the caller's AWS credentials (not the
 * stand-ins' keys it sets for everything else) and the model id of --bedrock-model.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../support/api-client';
import { exchangeToken } from '../../support/harness';
import { startFakeBedrock, type FakeBedrock } from '../../fakes/bedrock-converse';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FREE_PORTS = [
  '--port',
  '--s3-port',
  '--dynamodb-port',
  '--kms-port',
  '--stepfunctions-port',
  '--delta-sharing-port',
  '--pricing-port',
  '--pricing-token-port',
].flatMap((option) => [option, '0']);
const CALLER_KEY = 'AKIACALLERSOWNKEY0001';
const MODEL = 'anthropic.claude-test-v1:0';

interface Started {
  readonly child: ChildProcess;
  readonly output: Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>;
  readonly banner: Promise<string>;
}

/** Starts `npm start` with `args`; `banner` resolves once the stack is up. */
function start(dataDir: string, args: readonly string[]): Started {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'infra/local/main.ts', '--data-dir', dataDir, ...FREE_PORTS, ...args],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        AWS_ACCESS_KEY_ID: CALLER_KEY,
        AWS_SECRET_ACCESS_KEY: 'callers-own-secret',
        AWS_REGION: 'us-east-1',
      },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const banner = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Ctrl-C stops.')) resolve(stdout);
    });
    child.on('close', () => reject(new Error(`npm start ended before it was up: ${stdout}${stderr}`)));
  });
  banner.catch(() => undefined);
  const output = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, output, banner };
}

const dataDir = mkdtempSync(join(tmpdir(), 'dps-assistant-start-'));
let bedrock: FakeBedrock;
let stack: Started;

beforeAll(async () => {
  bedrock = await startFakeBedrock();
  stack = start(join(dataDir, 'bedrock'), [
    '--bedrock-endpoint',
    bedrock.endpoint,
    '--bedrock-model',
    MODEL,
    '--feature',
    'ai_assistant=on',
  ]);
  await stack.banner;
}, 120_000);
afterAll(async () => {
  if (stack?.child.exitCode === null) stack.child.kill('SIGKILL');
  await bedrock?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start and the assistant', () => {
  it('says the assistant is unavailable without a model, and --feature cannot turn it on', async () => {
    const refused = start(join(dataDir, 'none'), ['--feature', 'ai_assistant=on']);
    const { code, stderr } = await refused.output;
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      'npm start: --feature ai_assistant=on: feature ai_assistant is not available in this build; it stays off',
    );
  });

  it('calls the --bedrock-endpoint with the caller’s own credentials and the --bedrock-model', async () => {
    const banner = await stack.banner;
    expect(banner).toContain(`AI assistant    ${MODEL} at ${bedrock.endpoint}`);
    const api = /^ +API +(\S+)/m.exec(banner)![1]!;
    const clientId = /CLIENT_ID=(\S+)/.exec(banner)![1]!;
    const secret = /CLIENT_SECRET=(\S+)/.exec(banner)![1]!;
    const client = new ApiClient(api, await exchangeToken(api, clientId, secret), 'local');
    const started = await client.call('startConversation');
    expect(started.status, started.text).toBe(201);
    bedrock.play({ text: 'You have no tables yet.' });
    const reply = await client.call('sendConversationMessage', {
      params: { conversation_id: started.body.conversation_id },
      body: { content: 'Which tables do I have?' },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.content).toBe('You have no tables yet.');
    const [request] = bedrock.requests;
    expect(request?.modelId).toBe(MODEL);
    expect(request?.authorization).toContain(`Credential=${CALLER_KEY}/`);
  });
});
