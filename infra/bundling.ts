import { resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { handlerModulePath } from '../shared/http/handler-ref';

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
 * Lambda functions also leave Powertools out: the stage's Powertools layer provides it
 * (infra/layers/powertools-layer.ts). Fargate tasks and the twin's engine processes bundle it.
 */
export const POWERTOOLS_EXTERNAL = ['@aws-lambda-powertools/*'];

/**
 * ESM output needs `require` for the few CommonJS dependencies esbuild leaves as calls,
 * and __dirname/__filename for code that reads them.
 */
export const ESM_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; import { fileURLToPath as __fileURLToPath } from 'node:url'; import { dirname as __pathDirname } from 'node:path'; const require = __createRequire(import.meta.url); const __filename = __fileURLToPath(import.meta.url); const __dirname = __pathDirname(__filename);";

/** Packages an API function must never carry: the engine and warehouse SDKs belong to workers. */
export const FORBIDDEN_IN_API_BUNDLES = [
  '@duckdb/',
  'duckdb',
  'snowflake-sdk',
  '@google-cloud/bigquery',
  '@google-cloud/storage',
];

/**
 * The exceptions, by handler: functions that call a user's system while answering a request
 * carry that system's SDK (loaded on demand by the connector dispatch, so their other calls
 * do not load it). A connection test and a stored connection's test log in to the warehouse
 * and list a cloud store; the rdbms query test has the warehouse compile the query; browsing
 * lists a cloud store; table listing and table details read BigQuery's or Snowflake's catalogue.
 */
export const CONNECTOR_SDKS_BY_HANDLER: Readonly<Record<string, readonly string[]>> = {
  'connections/test': ['snowflake-sdk', '@google-cloud/storage', '@google-cloud/bigquery'],
  'connections/test-stored': ['snowflake-sdk', '@google-cloud/storage', '@google-cloud/bigquery'],
  'connections/browse': ['@google-cloud/storage'],
  'data-sources/test-query': ['snowflake-sdk'],
  'connections/tables': ['snowflake-sdk', '@google-cloud/bigquery'],
  'connections/table': ['snowflake-sdk', '@google-cloud/bigquery'],
};

/** What an API function's bundle may weigh, as deployed. */
export const MAX_API_BUNDLE_BYTES = 300 * 1024;

/**
 * Functions allowed more, each with its reason. meta/docs-script serves the API reference
 * page's renderer, Redoc's standalone bundle (1.1 MB; 1.2 MB bundled), which the page needs whole; it
 * runs only when someone opens the page, and no API call loads it. The functions that carry
 * snowflake-sdk (CONNECTOR_SDKS_BY_HANDLER) weigh about 3.4 MB more: the driver's entry module
 * loads moment-timezone's zone data (0.7 MB), the Azure and Google clients of its file
 * transfers and workload identity, axios and winston. @google-cloud/storage adds about 0.8 MB
 * (its own google-auth-library, gaxios, teeny-request and node-fetch, fast-xml-parser);
 * @google-cloud/bigquery (analytics_db connection tests) under 0.1 MB more, sharing those.
 * Table listing and details carry snowflake-sdk and @google-cloud/bigquery without the storage
 * client (about 3.6 MB). meta/openapi, meta/docs and meta/not-found carry the whole route
 * table, every schema included (the document is made from it; the fallback tells 404 from 405
 * by it): with the transfer, conversation and app routes it passed 300 KB (331 KB), and with the
 * quality rules', schedules' and lineage routes 384 KB (406 KB for meta/openapi, 176
 * operations): the budget is per route table, and grows with it. The fallback could carry only
 * the paths and methods, which is left for issue 28's bundle work.
 * apps/start-run carries the domain modules of every run action an app may declare (a table's
 * preview, a node run, an export to a target, the backend call through the outbound guard): the
 * execute and export functions' code together, about 298 KB, at the edge of 300.
 * The routes that analyse recipe code (create, version create and update, analyze) carry the
 * Trino analyzer of trino-sql recipes: dt-sql-parser's lexer and parser generated from Trino's
 * grammar, with antlr4ng, about 0.75 MB (about 1.05 MB in all).
 * The lineage routes of a graph's column and of a data version carry the tracer, the graph,
 * run and data-version stores and the connectors' naming, and, as every route that can end a
 * job does (status.ts), the OpenLineage end-event sender and its schemas (6 KB): 302 KB before it.
 * The graph version's lineage and its Mermaid picture carry the same tracer and stores; with the
 * sender's lookup of a tenant's own endpoint (0.6 KB; the outbound guard stays out, in the job
 * workers and the admin route that sets it) they passed 300 KB (307 KB).
 * conversations/send (the assistant's turn: its tools reach the job status writes, and it is an
 * engine route for its SQL checks) stood at 307.2 KB, at the edge; the outbox write of a run's
 * end event for a tenant's own endpoint (1 KB in every route that can end a job,
 * shared/openlineage/outbox.ts) took it to 308 KB.
 */
export const LARGER_BUNDLE_BUDGETS: Readonly<Record<string, number>> = {
  'meta/docs-script': 1536 * 1024,
  'meta/openapi': 448 * 1024,
  'meta/docs': 448 * 1024,
  'meta/not-found': 448 * 1024,
  'apps/start-run': 384 * 1024,
  'lineage/column': 320 * 1024,
  'lineage/data-version': 320 * 1024,
  'lineage/graph': 320 * 1024,
  'lineage/mermaid': 320 * 1024,
  'conversations/send': 320 * 1024,
  'recipes/create': 1152 * 1024,
  'recipes/create-version': 1152 * 1024,
  'recipes/update-version': 1152 * 1024,
  'recipes/analyse': 1152 * 1024,
  'connections/test': 4352 * 1024,
  'connections/test-stored': 4352 * 1024,
  'connections/browse': 1152 * 1024,
  'data-sources/test-query': 3840 * 1024,
  'connections/tables': 3840 * 1024,
  'connections/table': 3840 * 1024,
};

/** The budget of the function whose handler module is `handler` (under functions/, no extension). */
export function bundleBudget(handler: string): number {
  return LARGER_BUNDLE_BUDGETS[handler] ?? MAX_API_BUNDLE_BYTES;
}

/** A function's bundle as deployed: its bytes, its code, and a metafile of its own output and inputs. */
export interface FunctionBundle {
  readonly bytes: number;
  readonly metafile: Metafile;
  readonly code: string;
}

/**
 * Bundles handler modules as NodejsFunction does (no source map), in memory, all in one esbuild
 * build: each entry is its own output with no shared chunks, so each is byte for byte what a
 * build of it alone gives, but the modules they share are parsed once (93 API functions: about
 * 7 s of CPU instead of 20). Each bundle's metafile holds only its output and the inputs its
 * entry reaches, as a build of it alone reports them.
 */
export async function bundleFunctions(
  entries: readonly string[],
  external: readonly string[] = EXTERNAL_MODULES,
): Promise<Map<string, FunctionBundle>> {
  const result = await build({
    entryPoints: entries.map((entry, index) => ({ in: entry, out: String(index) })),
    outdir: 'bundles',
    outExtension: { '.js': '.mjs' },
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
  const bundles = new Map<string, FunctionBundle>();
  entries.forEach((entry, index) => {
    const outputPath = `bundles/${index}.mjs`;
    const output = result.outputFiles.find((file) => file.path === resolve(outputPath));
    if (!output) throw new Error(`esbuild produced no output for ${entry}`);
    bundles.set(entry, {
      bytes: output.contents.byteLength,
      metafile: metafileOfOutput(result.metafile, outputPath),
      code: output.text,
    });
  });
  return bundles;
}

/**
 * Bundles API functions by handler module under functions/ ("connections/create"), as deployed:
 * one build for the handlers of routes that declare engine and one for the rest, since what they
 * leave out differs. `externalOf` says what a function leaves out by that flag (as deployed:
 * routeExternalModules).
 */
export async function bundleApiFunctions(
  handlers: readonly string[],
  engineHandlers: ReadonlySet<string>,
  externalOf: (engine: boolean) => readonly string[] = routeExternalModules,
): Promise<Map<string, FunctionBundle>> {
  // Handlers of one module (a declared entity's) share its bundle, as their functions deploy the same code.
  const entryOf = handlerModulePath;
  const builds = await Promise.all(
    [false, true].map(async (engine) => {
      const own = handlers.filter((handler) => engineHandlers.has(handler) === engine);
      if (own.length === 0) return [];
      const bundles = await bundleFunctions([...new Set(own.map(entryOf))], externalOf(engine));
      return own.map((handler) => [handler, bundles.get(entryOf(handler))!] as const);
    }),
  );
  return new Map(builds.flat());
}

/** Bundles one handler module as NodejsFunction does (no source map), in memory. */
export async function bundleFunction(
  entry: string,
  external: readonly string[] = EXTERNAL_MODULES,
): Promise<FunctionBundle> {
  const bundle = (await bundleFunctions([entry], external)).get(entry);
  if (!bundle) throw new Error(`esbuild produced no output for ${entry}`);
  return bundle;
}

/** The part of a build's metafile that one output's entry reaches, through imports it bundles. */
function metafileOfOutput(metafile: Metafile, outputPath: string): Metafile {
  const output = metafile.outputs[outputPath];
  if (!output?.entryPoint) throw new Error(`esbuild reported no entry point for ${outputPath}`);
  const reached = new Set<string>();
  const pending = [output.entryPoint];
  // Each input's imports are followed once, so this ends after at most one step per import of the build.
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    const input = metafile.inputs[path];
    if (reached.has(path) || !input) continue;
    reached.add(path);
    pending.push(...input.imports.filter((i) => !i.external).map((i) => i.path));
  }
  return {
    inputs: Object.fromEntries([...reached].map((path) => [path, metafile.inputs[path]!])),
    outputs: { [outputPath]: output },
  };
}

function isForbidden(path: string, allowed: readonly string[]): boolean {
  // A forbidden entry names a package (or a scope when it ends in '/'); match it as a whole path segment.
  const packagePaths = [path, ...path.split('node_modules/').slice(1)];
  return FORBIDDEN_IN_API_BUNDLES.some(
    (entry) =>
      !allowed.includes(entry) &&
      packagePaths.some((candidate) =>
        entry.endsWith('/') ? candidate.startsWith(entry) : candidate === entry || candidate.startsWith(`${entry}/`),
      ),
  );
}

/** The connector SDKs the bundled function may carry, found by its entry point (functions/<handler>.ts). */
function allowedIn(metafile: Metafile): readonly string[] {
  const entry = Object.values(metafile.outputs).find((output) => output.entryPoint !== undefined)?.entryPoint;
  const handler = /^functions\/(.+)\.ts$/.exec(entry ?? '')?.[1];
  return (handler && CONNECTOR_SDKS_BY_HANDLER[handler]) || [];
}

/** Inputs, or imports left external, that belong to a package an API function must not carry. */
export function forbiddenPackagesIn(metafile: Metafile): string[] {
  const allowed = allowedIn(metafile);
  const paths = Object.entries(metafile.inputs).flatMap(([path, input]) => [
    path,
    ...input.imports.filter((i) => i.external).map((i) => i.path),
  ]);
  return [...new Set(paths.filter((path) => isForbidden(path, allowed)))];
}

/** What a route's function leaves out of its bundle: DuckDB too when the route declares `engine`. */
export const routeExternalModules = (engine: boolean | undefined): readonly string[] => [
  ...(engine ? ENGINE_EXTERNAL_MODULES : EXTERNAL_MODULES),
  ...POWERTOOLS_EXTERNAL,
];

/**
 * forbiddenPackagesIn for a route's function, where a route that declares `engine` may import
 * DuckDB, left external for its layer to provide, but never carry it in the bundle.
 */
export function forbiddenInRoute(metafile: Metafile, engine: boolean | undefined): string[] {
  const forbidden = forbiddenPackagesIn(metafile);
  if (!engine) return forbidden;
  const fromLayer = new Set(duckDbImportsIn(metafile));
  return forbidden.filter((path) => !fromLayer.has(path));
}

/** DuckDB imports the bundle leaves external (for the layer). */
export function duckDbImportsIn(metafile: Metafile): string[] {
  const imports = Object.values(metafile.inputs).flatMap((input) =>
    input.imports.filter((i) => i.external && i.path.startsWith('@duckdb/')).map((i) => i.path),
  );
  return [...new Set(imports)];
}
