#!/usr/bin/env node
// @ts-check
/* global URL */
/**
 * dps, run from the repository (`npx dps` after `npm ci`, or the root package's bin once
 * linked): runs the bundle in clients/cli/dist, building it first with esbuild when it is
 * missing or older than any source of the CLI or the client (a few ms to check, ~0.2 s to build).
 */
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bundle = `${root}cli/dist/cli.js`;

/** The newest modification time of the .ts files under `folder`. */
function newest(folder) {
  let latest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

let built = 0;
try {
  built = statSync(bundle).mtimeMs;
} catch {
  // Not built yet.
}
if (built < Math.max(newest(`${root}cli/src`), newest(`${root}typescript/src`))) {
  const { buildCli } = await import('../build.mjs');
  await buildCli();
}
await import(pathToFileURL(bundle).href);
