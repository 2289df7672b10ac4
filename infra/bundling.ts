import { build, type Metafile } from 'esbuild';

/**
 * How every function is bundled, shared by the CDK stack (NodejsFunction) and the bundle-size
 * benchmark, so what is measured is what is deployed. The AWS SDK v3 is provided by the
 * nodejs22.x runtime and left out of bundles (CDK's default for that runtime).
 */
export const LAMBDA_TARGET = 'node22';

/** Modules the Lambda runtime provides. */
export const EXTERNAL_MODULES = ['@aws-sdk/*'];

/**
 * Engine workers also leave DuckDB out: its native binding cannot be bundled, and the one for
 * Lambda's platform comes with the DuckDB layer (infra/layers/duckdb-layer.ts).
 */
export const ENGINE_EXTERNAL_MODULES = [...EXTERNAL_MODULES, '@duckdb/*'];

/**
 * ESM output needs `require` for the few CommonJS dependencies esbuild leaves as calls,
 * and __dirname/__filename for code that reads them.
 */
export const ESM_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; import { fileURLToPath as __fileURLToPath } from 'node:url'; import { dirname as __pathDirname } from 'node:path'; const require = __createRequire(import.meta.url); const __filename = __fileURLToPath(import.meta.url); const __dirname = __pathDirname(__filename);";

/** Packages an API function must never carry: the engine and warehouse SDKs belong to workers. */
export const FORBIDDEN_IN_API_BUNDLES = ['@duckdb/', 'duckdb', 'snowflake-sdk', '@google-cloud/bigquery', '@google-cloud/storage'];

/** What an API function's bundle may weigh, as deployed. */
export const MAX_API_BUNDLE_BYTES = 300 * 1024;

/** Bundles one handler module as NodejsFunction does (no source map), in memory. */
export async function bundleFunction(entry: string, external: readonly string[] = EXTERNAL_MODULES): Promise<{ bytes: number; metafile: Metafile }> {
  const result = await build({
    entryPoints: [entry],
    outfile: 'index.mjs',
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_TARGET,
    minify: true,
    sourcemap: false,
    external: [...external],
    banner: { js: ESM_BANNER },
    metafile: true,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild produced no output for ${entry}`);
  return { bytes: output.contents.byteLength, metafile: result.metafile };
}

function isForbidden(path: string): boolean {
  // A forbidden entry names a package (or a scope when it ends in '/'); match it as a whole path segment.
  const packagePaths = [path, ...path.split('node_modules/').slice(1)];
  return FORBIDDEN_IN_API_BUNDLES.some((entry) =>
    packagePaths.some((candidate) => (entry.endsWith('/') ? candidate.startsWith(entry) : candidate === entry || candidate.startsWith(`${entry}/`))),
  );
}

/** Inputs, or imports left external, that belong to a package an API function must not carry. */
export function forbiddenPackagesIn(metafile: Metafile): string[] {
  const paths = Object.entries(metafile.inputs).flatMap(([path, input]) => [path, ...input.imports.filter((i) => i.external).map((i) => i.path)]);
  return [...new Set(paths.filter(isForbidden))];
}
