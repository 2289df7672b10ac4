/**
 * Bundled for Lambda, a function that runs user SQL is its own engine process: its one file,
 * started again with DPS_ENGINE_PROCESS=1, serves engine tasks (shared/engine/isolation/), with
 * DuckDB from the layer (left external, resolved here from node_modules as the layer provides it).
 */
import { fork } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE_EXTERNAL_MODULES, bundleFunction } from '../../infra/bundling';
import { ENGINE_CHILD_VARIABLE } from '../../shared/engine/isolation/engine-child';
import type { TaskMessage, TaskRequest } from '../../shared/engine/isolation/wire';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FOLDER = join(ROOT, 'node_modules', '.cache', 'dps-bundled-analyze');

afterAll(() => rmSync(FOLDER, { recursive: true, force: true }));

/** Starts `bundle` as an engine process, sends it `request`, and answers the messages it sent until the task's answer. */
async function serve(bundle: string, request: TaskRequest): Promise<TaskMessage[]> {
  const child = fork(bundle, [], {
    env: { ...process.env, [ENGINE_CHILD_VARIABLE]: '1' },
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    return await new Promise<TaskMessage[]>((resolve, reject) => {
      const messages: TaskMessage[] = [];
      child.on('exit', (code) => reject(new Error(`the bundle exited (${code}) before it answered`)));
      child.on('message', (message: TaskMessage) => {
        messages.push(message);
        if (message.kind === 'ready') child.send(request);
        else if (message.kind === 'result' || message.kind === 'error') resolve(messages);
      });
    });
  } finally {
    child.kill('SIGKILL');
  }
}

describe('the analyze function as bundled', () => {
  it('serves engine tasks when started as its own engine process', async () => {
    const { code } = await bundleFunction(join(ROOT, 'functions/recipes/analyse.ts'), ENGINE_EXTERNAL_MODULES);
    mkdirSync(FOLDER, { recursive: true });
    const bundle = join(FOLDER, 'index.mjs');
    writeFileSync(bundle, code);
    const input = {
      code: 'SELECT amount * 2 AS doubled FROM t',
      tables: [{ alias: 't', definition: '"amount" BIGINT' }],
    };
    const messages = await serve(bundle, { id: 1, task: 'describe', input });
    expect(messages[0]).toEqual({ kind: 'ready' });
    expect(messages.at(-1)).toMatchObject({ id: 1, kind: 'result', result: [{ name: 'doubled', type: 'BIGINT' }] });
  });
});
