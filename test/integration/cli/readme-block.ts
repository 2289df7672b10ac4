/**
 * The README's dps block ("The same with dps") run as a reader runs it: in bash, in a folder of
 * its own, with `dps` the bundle under this node (what `npm link` puts on a PATH), and the
 * banner's values (DPS_BASE_URL, DPS_CLIENT_ID, DPS_CLIENT_SECRET, S3_ENDPOINT) those of the
 * stack under test. Every dps call is counted, so the block cannot pass by running less than
 * it shows.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeShellBlocks, withValues } from '../../support/readme-shell';

export const DPS_SECTION = 'The same with dps';

/** `set -e`, and dps as a function that counts its calls before it runs the bundle. */
const PRELUDE = `set -euo pipefail
dps() {
  echo "$*" >> "$DPS_CALLS"
  "$DPS_NODE" "$DPS_BUNDLE" "$@"
}
`;

/** A dps command in a script: at a line's start or after `&&`, with variable assignments before it. */
const DPS_COMMAND = /(?:^|&& )(?:[A-Z_]+=\S+ )*dps /gm;

export interface BlockRun {
  readonly code: number | null;
  /** stdout and stderr as a terminal-less reader sees them. */
  readonly output: string;
  /** The arguments of each dps call, in order. */
  readonly calls: readonly string[];
  /** How many dps commands the block shows. */
  readonly commands: number;
}

export interface BlockStack {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly s3Endpoint: string;
}

/** Runs the block in `folder` (where its by-region.sql and reader.secret land) with `bundle` as dps. */
export async function runReadmeDpsBlock(stack: BlockStack, bundle: string, folder: string): Promise<BlockRun> {
  const script = withValues(readmeShellBlocks(DPS_SECTION).join('\n'), {
    DPS_BASE_URL: stack.baseUrl,
    DPS_CLIENT_ID: stack.clientId,
    DPS_CLIENT_SECRET: stack.clientSecret,
    S3_ENDPOINT: stack.s3Endpoint,
  });
  const file = join(folder, 'dps-block.sh');
  const calls = join(folder, 'dps-calls');
  writeFileSync(file, PRELUDE + script);
  writeFileSync(calls, '');
  const run = spawn('bash', [file], {
    cwd: folder,
    // No profile and no home of the tester's: only what the block exports.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: folder,
      DPS_CONFIG: join(folder, 'absent.json'),
      DPS_NODE: process.execPath,
      DPS_BUNDLE: bundle,
      DPS_CALLS: calls,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  run.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
  return {
    code,
    output,
    calls: readFileSync(calls, 'utf8').split('\n').filter(Boolean),
    commands: script.match(DPS_COMMAND)?.length ?? 0,
  };
}
