/**
 * A synthesis that bundles, in a child process (synth-child.ts). CDK bundles every function
 * and layer synchronously; in the test process that would block its event loop for tens of
 * seconds on a loaded machine, past vitest's 60 s RPC timeout ("Timeout calling
 * onTaskUpdate"), which fails the run though every test passed. Here the test process only
 * waits, then reads the templates from the cloud assembly.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../../infra/stacks/service-function';
import { stackName } from '../../infra/stacks/stage';
import { templatesOf, type NestedTemplate, type SynthesizedTemplates } from './synth';

/** What the child synthesizes. */
export interface ChildSynthesis {
  readonly assemblyDir: string;
  readonly stage: string;
  readonly nag: boolean;
  /** Stacks to bundle by construct path (`DataPreparation-<stage>/Jobs`), or all. */
  readonly bundle: true | readonly string[];
  /** Only these routes (route objects do not cross processes); every route when absent. */
  readonly operationIds?: readonly string[];
}

/** The child's index of the nested stacks' templates, in the assembly folder. */
export const NESTED_INDEX = 'nested-stacks.json';

export interface NestedStackFile {
  readonly name: string;
  readonly logicalId: string;
  readonly file: string;
}

const CHILD = fileURLToPath(new URL('./synth-child.ts', import.meta.url));
/** A folder whose npx runs the project's esbuild without npx's start (bin/npx says why). */
const FAST_NPX = fileURLToPath(new URL('./bin', import.meta.url));

export async function synthesizeBundled(options: Omit<ChildSynthesis, 'assemblyDir'>): Promise<SynthesizedTemplates> {
  const assemblyDir = mkdtempSync(join(tmpdir(), 'dps-infra-'));
  try {
    await runChild({ ...options, assemblyDir });
    const name = stackName(options.stage);
    const rootJson = readJson(assemblyDir, `${name}.template.json`);
    const index = readJson(assemblyDir, NESTED_INDEX) as NestedStackFile[];
    const nested = index.map(({ name: id, logicalId, file }): NestedTemplate => ({
      name: id,
      logicalId,
      json: readJson(assemblyDir, file),
    }));
    return templatesOf(assemblyDir, name, rootJson, nested);
  } catch (error) {
    rmSync(assemblyDir, { recursive: true, force: true });
    throw error;
  }
}

function readJson(folder: string, file: string): unknown {
  return JSON.parse(readFileSync(join(folder, file), 'utf8'));
}

function runChild(request: ChildSynthesis): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(request)], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, PATH: `${FAST_NPX}:${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`synthesis failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
}
