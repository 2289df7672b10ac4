// @ts-check
/* global process, URL */
/**
 * Builds dist/: the client as one ES module (esbuild; openapi-fetch stays a dependency) and its
 * declarations (tsc), with the generated openapi.d.ts beside them. Run by `npm run build` and by
 * `npm pack` (prepack). esbuild and typescript are the repository's own: this folder is not a
 * workspace, so they resolve from the root's node_modules (docs/decisions.md, The client and dps).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const require = createRequire(import.meta.url);
rmSync(`${here}dist`, { recursive: true, force: true });
await build({
  entryPoints: [`${here}src/index.ts`],
  outfile: `${here}dist/index.js`,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  external: ['openapi-fetch'],
  logLevel: 'warning',
});
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', `${here}tsconfig.build.json`], {
  stdio: 'inherit',
});
mkdirSync(`${here}dist/generated`, { recursive: true });
copyFileSync(`${here}src/generated/openapi.d.ts`, `${here}dist/generated/openapi.d.ts`);
