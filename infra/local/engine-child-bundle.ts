import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFunctions, ENGINE_EXTERNAL_MODULES } from '../bundling';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = join(ROOT, 'shared', 'engine', 'isolation', 'engine-child.ts');
/**
 * Under node_modules, so that the bundles' external modules (DuckDB, the AWS SDK) resolve from
 * there: every bundle here shares one instance of each with the others an engine process loads.
 */
const FOLDER = join(ROOT, 'node_modules', '.cache', 'dps-engine-child');

const bundles = new Map<string, Promise<string>>();

/**
 * The engine process's module as the twin runs it: engine-child.ts bundled as a worker's
 * function is (infra/bundling.ts), written once per content. From the bundle an engine process
 * is ready in 0.2 s of CPU; from source, through tsx's loader, in 0.7 s (the test suite starts
 * about twenty). Made once per process; a failed bundling is tried again by the next caller.
 */
export function engineChildBundle(): Promise<string> {
  return engineModuleBundle(ENTRY);
}

/**
 * The TypeScript module `entry` bundled as engine-child.ts is, into the same folder: what an
 * engine process, which runs plain Node from its bundle, can load beside it (`--import`), such
 * as the bench's timing of its DuckDB statements (bench/engine-process-watch.ts). Its file is
 * named after the entry and its content. Made once per process and entry.
 */
export function engineModuleBundle(entry: string): Promise<string> {
  let bundle = bundles.get(entry);
  if (!bundle) {
    bundle = writeBundle(entry).catch((error: unknown) => {
      bundles.delete(entry);
      throw error;
    });
    bundles.set(entry, bundle);
  }
  return bundle;
}

async function writeBundle(entry: string): Promise<string> {
  const { code } = (await bundleFunctions([entry], ENGINE_EXTERNAL_MODULES)).get(entry)!;
  const name = basename(entry).replace(/\.ts$/, '');
  const path = join(FOLDER, `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(path)) {
    mkdirSync(FOLDER, { recursive: true });
    // Written aside, then renamed: a process of another test file may be starting one from it.
    const partial = `${path}.${process.pid}`;
    writeFileSync(partial, code);
    renameSync(partial, path);
  }
  return path;
}
