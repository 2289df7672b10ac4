/**
 * Bundle size of every route handler of the route table, built the way CDK's NodejsFunction builds it
 * (esbuild --bundle --platform=node --format=esm --minify --target --external --banner),
 * through bundleApiFunctions of infra/bundling.ts, which the bundle test uses too.
 */
import type { Metafile } from 'esbuild';
import { routes } from '../functions/routes';
import { bundleApiFunctions, forbiddenInRoute, MAX_API_BUNDLE_BYTES } from '../infra/bundling';

export const MAX_BUNDLE_BYTES = MAX_API_BUNDLE_BYTES;

export interface Contributor {
  readonly name: string;
  readonly bytes: number;
}

export interface BundleReport {
  readonly handler: string;
  /** As deployed: the AWS SDK left to the Lambda runtime. */
  readonly bytes: number;
  /** For reference: everything bundled, the AWS SDK included. */
  readonly bytesWithSdk: number;
  readonly top: readonly Contributor[];
  /** Inputs (or external imports) that belong to a forbidden package. */
  readonly forbidden: readonly string[];
}

/** The package an input path belongs to (the last node_modules segment wins), or the project folder. */
function ownerOf(path: string): string {
  const segments = path.split('/');
  const at = segments.lastIndexOf('node_modules');
  if (at < 0) return `(project) ${segments.length > 1 ? segments[0] : path}/`;
  const first = segments[at + 1] ?? '';
  return first.startsWith('@') ? `${first}/${segments[at + 2] ?? ''}` : first;
}

function topContributors(metafile: Metafile, count: number): Contributor[] {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      totals.set(ownerOf(path), (totals.get(ownerOf(path)) ?? 0) + bytesInOutput);
    }
  }
  return [...totals]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}

/** Handler modules of the route table ("connections/create"), each once. */
export function routeHandlers(): string[] {
  return [...new Set(routes.map((route) => route.handler))].sort();
}

/**
 * Every route handler's bundle, or the first `count` handlers' (a smoke run's: bench/settings.ts),
 * with one that declares the engine among them, so both builds of bundleApiFunctions run.
 */
export async function measureBundles(count?: number): Promise<BundleReport[]> {
  const engineHandlers = new Set(routes.filter((route) => route.engine).map((route) => route.handler));
  const all = routeHandlers();
  const handlers =
    count === undefined
      ? all
      : [...new Set([...all.filter((handler) => engineHandlers.has(handler)).slice(0, 1), ...all])].slice(0, count);
  // As deployed, and for reference with the AWS SDK (an engine route's DuckDB comes from the layer either way).
  const deployed = await bundleApiFunctions(handlers, engineHandlers);
  const withSdk = await bundleApiFunctions(handlers, engineHandlers, (engine) => (engine ? ['@duckdb/*'] : []));
  return handlers.map((handler) => {
    const engine = engineHandlers.has(handler);
    const asDeployed = deployed.get(handler)!;
    const sdkIncluded = withSdk.get(handler)!;
    return {
      handler,
      bytes: asDeployed.bytes,
      bytesWithSdk: sdkIncluded.bytes,
      top: topContributors(asDeployed.metafile, 3),
      forbidden: [
        ...new Set([
          ...forbiddenInRoute(asDeployed.metafile, engine),
          ...forbiddenInRoute(sdkIncluded.metafile, engine),
        ]),
      ],
    };
  });
}
