/**
 * The README's walkthrough, run as a reader runs it: its ```sh blocks, in order, in bash,
 * against `npm start` on a fresh data folder. The only changes are the values a reader copies
 * from the banner (BASE, CLIENT_ID, CLIENT_SECRET, S3_ENDPOINT, PLATFORM_CLIENT_ID,
 * PLATFORM_CLIENT_SECRET, DELTA_SHARING_ENDPOINT, PRICING_DIM_HOST, PRICING_TOKEN_URL). Every `# → <status> [json]` line is the expectation of the command
 * above it: each answer of that command must have the status, and its body must contain the
 * JSON shown. A renamed field or route fails here
 * instead of misleading the next reader.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeShellBlocks, withValues } from '../support/readme-shell';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Expectation {
  /** Line of the `# →` comment in the script run. */
  readonly line: number;
  readonly status: number;
  readonly body: unknown;
}

const EXPECTATION = /^# → (\d{3})(?: (.+))?$/;

function expectationsIn(script: string): Expectation[] {
  return script.split('\n').flatMap((text, index) => {
    const match = EXPECTATION.exec(text);
    if (!match) return [];
    return [
      {
        line: index + 1,
        status: Number(match[1]),
        body: match[2] === undefined ? undefined : (JSON.parse(match[2]) as unknown),
      },
    ];
  });
}

/**
 * Records every curl call: the script line it was made from, its status and body (in files
 * numbered in call order); the body is still printed, so pipes and $(…) work as written.
 */
const PRELUDE = `set -euo pipefail
curl() {
  local call
  call=$(mktemp "$WALKTHROUGH_CALLS/call.XXXXXX")
  echo "$call \${BASH_LINENO[0]}" >> "$WALKTHROUGH_CALLS/order"
  command curl "$@" -o "$call.body" -w '%{http_code}' > "$call.status"
  cat "$call.body"
}
`;

interface Call {
  readonly line: number;
  readonly status: number;
  readonly body: string;
}

function callsIn(folder: string, offset: number): Call[] {
  return readFileSync(join(folder, 'order'), 'utf8')
    .trim()
    .split('\n')
    .map((entry) => {
      const [file = '', line = ''] = entry.split(' ');
      return {
        line: Number(line) - offset,
        status: Number(readFileSync(`${file}.status`, 'utf8')),
        body: readFileSync(`${file}.body`, 'utf8'),
      };
    });
}

/** `npm start` on its own data folder and free ports; resolves with its banner. */
function startStack(dataDir: string): Promise<{ readonly child: ChildProcess; readonly banner: string }> {
  const ports = [
    '--port',
    '--s3-port',
    '--dynamodb-port',
    '--kms-port',
    '--stepfunctions-port',
    '--delta-sharing-port',
    '--pricing-port',
    '--pricing-token-port',
  ].flatMap((option) => [option, '0']);
  // Node with tsx's loader, not the tsx wrapper: one process, which the kill below ends.
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts', '--data-dir', dataDir, ...ports], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, POWERTOOLS_LOG_LEVEL: 'SILENT' },
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ctrl-C stops.')) resolve({ child, banner: output });
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => reject(new Error(`npm start ended (${code}) before it was up: ${output}`)));
  });
}

function bannerValue(banner: string, pattern: RegExp): string {
  const value = pattern.exec(banner)?.[1];
  if (value === undefined) throw new Error(`the banner has no line matching ${pattern}:\n${banner}`);
  return value;
}

const dataDir = mkdtempSync(join(tmpdir(), 'dps-walkthrough-'));
let stack: { readonly child: ChildProcess; readonly banner: string };

beforeAll(async () => {
  stack = await startStack(join(dataDir, 'stack'));
});
afterAll(() => {
  stack?.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the README's walkthrough", () => {
  // 22 steps take about a minute; more on a loaded machine, each step polling its jobs.
  it('runs as written, and every command answers what its # → line shows', { timeout: 300_000 }, async () => {
    const walkthrough = readmeShellBlocks('Walkthrough with curl').join('\n');
    const { banner } = stack;
    const script = withValues(walkthrough, {
      BASE: bannerValue(banner, /^ +API +(\S+)$/m),
      CLIENT_ID: bannerValue(banner, /^ +CLIENT_ID=(\S+)$/m),
      CLIENT_SECRET: bannerValue(banner, /^ +CLIENT_SECRET=(\S+)$/m),
      PLATFORM_CLIENT_ID: bannerValue(banner, /^ +PLATFORM_CLIENT_ID=(\S+)$/m),
      PLATFORM_CLIENT_SECRET: bannerValue(banner, /^ +PLATFORM_CLIENT_SECRET=(\S+)$/m),
      S3_ENDPOINT: bannerValue(banner, /^ +S3 +(\S+)/m),
      DELTA_SHARING_ENDPOINT: bannerValue(banner, /^ +Delta Sharing +(\S+)/m),
      PRICING_DIM_HOST: bannerValue(banner, /^ +Pricing DIM +(\S+)/m),
      PRICING_TOKEN_URL: bannerValue(banner, /^ +Pricing DIM .*token URL ([^;\s]+)/m),
    });
    const calls = join(dataDir, 'calls');
    mkdirSync(calls);
    writeFileSync(join(dataDir, 'walkthrough.sh'), PRELUDE + script);
    const run = spawn('bash', [join(dataDir, 'walkthrough.sh')], {
      cwd: ROOT,
      // The stack's data folder, where create-client --local finds it (.local/ for a reader).
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        WALKTHROUGH_CALLS: calls,
        DATA_DIR: join(dataDir, 'stack'),
      },
    });
    let output = '';
    run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    run.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
    expect(code, output).toBe(0);

    const expectations = expectationsIn(script);
    const answers = callsIn(calls, PRELUDE.split('\n').length - 1);
    const checked = new Set<Expectation>();
    for (const call of answers) {
      // A command's expectation is the first # → line at or after the line bash reports for it.
      const expectation = expectations.find((candidate) => candidate.line >= call.line);
      expect(expectation, `a curl call at line ${call.line} has no # → line after it`).toBeDefined();
      const where = `line ${expectation!.line}: ${script.split('\n')[expectation!.line - 1]}\nanswer: ${call.body}`;
      expect(call.status, where).toBe(expectation!.status);
      if (expectation!.body !== undefined)
        expect(JSON.parse(call.body), where).toMatchObject(expectation!.body as object);
      // The walkthrough's promise: a connection's secret never comes back.
      expect(call.body, where).not.toContain('secret_access_key');
      checked.add(expectation!);
    }
    expect(
      expectations
        .filter((expectation) => !checked.has(expectation))
        .map((expectation) => script.split('\n')[expectation.line - 1]),
      'every # → line was checked against an answer',
    ).toEqual([]);
    console.warn(`README walkthrough: ${expectations.length} steps checked against ${answers.length} answers`);
  });
});
