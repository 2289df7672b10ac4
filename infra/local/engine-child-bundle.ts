import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFunctions, ENGINE_EXTERNAL_MODULES } from '../bundling';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = join(ROOT, 'shared', 'engine', 'isolation', 'engine-child.ts');
/** Under node_modules, so that the bundle's external modules (DuckDB, the AWS SDK) resolve from there. */
const FOLDER = join(ROOT, 'node_modules', '.cache', 'dps-engine-child');

let bundle: Promise<string> | undefined;

/**
 * The engine process's module as the twin runs it: engine-child.ts bundled as a worker's
 * function is (infra/bundling.ts), written once per content. From the bundle an engine process
 * is ready in 0.2 s of CPU; from source, through tsx's loader, in 0.7 s (the test suite starts
 * about twenty). Made once per process; a failed bundling is tried again by the next caller.
 */
export function engineChildBundle(): Promise<string> {
  bundle ??= writeBundle().catch((error: unknown) => {
    bundle = undefined;
    throw error;
  });
  return bundle;
}

async function writeBundle(): Promise<string> {
  const { code } = (await bundleFunctions([ENTRY], ENGINE_EXTERNAL_MODULES)).get(ENTRY)!;
  const path = join(FOLDER, `engine-child-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(path)) {
    mkdirSync(FOLDER, { recursive: true });
    // Written aside, then renamed: a process of another test file may be starting one from it.
    const partial = `${path}.${process.pid}`;
    writeFileSync(partial, code);
    renameSync(partial, path);
  }
  return path;
}
