import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPowertoolsLayer, POWERTOOLS_PACKAGES } from '../../infra/layers/powertools-layer';
import { AUTHORIZER_HANDLER, FALLBACK_HANDLER, routes } from '../../functions/routes';
import {
  bundleBudget,
  bundleApiFunctions,
  bundleFunction,
  duckDbImportsIn,
  type FunctionBundle,
  forbiddenInRoute,
  routeExternalModules,
} from '../../infra/bundling';

/**
 * What every API function carries, bundled as deployed: never the data engine or a warehouse
 * SDK (those belong to job workers), and within the size budget. npm run bench reports the
 * sizes; this test keeps a regression from landing. The one exception: a route that declares
 * `engine` (it analyses recipe SQL) imports DuckDB, left external for the DuckDB layer,
 * never bundled.
 */
const handlers = [...new Set([...routes.map((route) => route.handler), AUTHORIZER_HANDLER, FALLBACK_HANDLER])].sort();
const engineHandlers = new Set(routes.filter((route) => route.engine).map((route) => route.handler));
/** Built once for the file, two esbuild builds in all, by the same function npm run bench measures with. */
let bundles: ReadonlyMap<string, FunctionBundle>;

beforeAll(async () => {
  bundles = await bundleApiFunctions(handlers, engineHandlers);
}, 120_000);

describe('API function bundles', () => {
  it.each(handlers)('%s carries no engine or warehouse SDK and stays under the budget', (handler) => {
    const engine = engineHandlers.has(handler);
    const bundle = bundles.get(handler);
    if (!bundle) throw new Error(`no bundle for ${handler}`);
    const { bytes, metafile } = bundle;
    expect(forbiddenInRoute(metafile, engine)).toEqual([]);
    expect(bytes).toBeLessThanOrEqual(bundleBudget(handler));
    // The AWS SDK comes from the Lambda runtime, not the bundle.
    expect(Object.keys(metafile.inputs).some((path) => path.includes('node_modules/@aws-sdk/'))).toBe(false);
    // A route declares engine only when it runs DuckDB: the layer and the memory are not free.
    expect(duckDbImportsIn(metafile).length > 0).toBe(engine);
    // Powertools comes from the stage's layer, by the package names it provides (no subpath).
    const powertools = Object.values(metafile.inputs).flatMap((input) =>
      input.imports.filter((i) => i.path.startsWith('@aws-lambda-powertools/')),
    );
    expect(powertools.every((i) => i.external && (POWERTOOLS_PACKAGES as readonly string[]).includes(i.path))).toBe(
      true,
    );
  });

  it('the Powertools layer provides those packages as ES modules that load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dps-powertools-'));
    try {
      buildPowertoolsLayer(dir);
      const load = async (name: string) =>
        (await import(pathToFileURL(join(dir, 'nodejs', 'node_modules', name, 'index.mjs')).href)) as Record<
          string,
          unknown
        >;
      const loaded = await Promise.all(POWERTOOLS_PACKAGES.map(load));
      // Logger, Metrics and Tracer, in POWERTOOLS_PACKAGES' order.
      const classes = ['Logger', 'Metrics', 'Tracer'];
      expect(loaded.map((module, index) => typeof module[classes[index] ?? ''])).toEqual([
        'function',
        'function',
        'function',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets a route that declares engine import DuckDB from the layer, and no other', async () => {
    const { metafile } = await bundleFunction('shared/engine/recipe-sql.ts', routeExternalModules(true));
    expect(duckDbImportsIn(metafile)).toEqual(['@duckdb/node-api']);
    expect(forbiddenInRoute(metafile, true)).toEqual([]);
    expect(forbiddenInRoute(metafile, false)).toEqual(['@duckdb/node-api']);
  });
});
