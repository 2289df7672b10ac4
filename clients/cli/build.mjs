// @ts-check
/* global process, URL */
/**
 * Bundles dps into dist/ (esbuild, ES modules split at each dynamic import, so `dps --help`
 * loads the command table and commander only). bin/dps.js calls it when the bundle is missing
 * or older than a source; `node clients/cli/build.mjs` builds it on purpose.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Builds the bundle; resolves once dist/cli.js is written. */
export async function buildCli() {
  rmSync(`${here}dist`, { recursive: true, force: true });
  await build({
    entryPoints: [`${here}src/cli.ts`],
    outdir: `${here}dist`,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Dependencies stay in node_modules: the bundle is the repository's own code only.
    packages: 'external',
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildCli();
