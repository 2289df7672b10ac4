/**
 * Powertools for AWS Lambda (logger, metrics, tracer) as one Lambda layer of the stage, which
 * every function uses and none bundles: the tracer alone (with the X-Ray SDK) weighs 124 KB
 * minified, more than the API bundles' headroom (infra/bundling.ts budgets), and the three
 * together would be in all of the stage's functions' zips. Each package is one minified ES
 * module, bundled with its dependencies from this project's node_modules at the version
 * package.json pins (pure JavaScript: nothing platform-specific, no network, no Docker), under
 * nodejs/node_modules/<package>/, where the nodejs22.x runtime resolves imports the bundles
 * leave external (as for the DuckDB layer). docs/decisions.md, "Metrics, traces and alarms".
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, Stack, type ILocalBundling } from 'aws-cdk-lib';
import { type Architecture, Code, LayerVersion, type Runtime } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { ESM_BANNER, EXTERNAL_MODULES, LAMBDA_TARGET } from '../bundling';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The packages the layer provides: exactly these, by their package name (no subpath). */
export const POWERTOOLS_PACKAGES = [
  '@aws-lambda-powertools/logger',
  '@aws-lambda-powertools/metrics',
  '@aws-lambda-powertools/tracer',
] as const;

/** The pinned version of each package (all the same one: the project pins them together). */
export function powertoolsVersion(packageJsonPath = join(PROJECT_ROOT, 'package.json')): string {
  const manifest = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { dependencies?: Record<string, string> };
  const versions = new Set(POWERTOOLS_PACKAGES.map((name) => manifest.dependencies?.[name]));
  const [version] = versions;
  if (versions.size !== 1 || version === undefined)
    throw new Error(`${POWERTOOLS_PACKAGES.join(', ')} must be dependencies at one exact version in package.json`);
  return version;
}

/**
 * Writes the layer's content under `outputDir`: nodejs/node_modules/<package>/index.mjs and a
 * package.json naming it, for each package. Answers the bytes of each module.
 */
export function buildPowertoolsLayer(outputDir: string, version = powertoolsVersion()): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const name of POWERTOOLS_PACKAGES) {
    const folder = join(outputDir, 'nodejs', 'node_modules', name);
    mkdirSync(folder, { recursive: true });
    const result = buildSync({
      entryPoints: [name],
      absWorkingDir: PROJECT_ROOT,
      outfile: join(folder, 'index.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: LAMBDA_TARGET,
      minify: true,
      external: [...EXTERNAL_MODULES],
      banner: { js: ESM_BANNER },
      logLevel: 'silent',
      metafile: true,
    });
    const installed = (
      JSON.parse(readFileSync(join(PROJECT_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
    ).version;
    if (installed !== version)
      throw new Error(`${name} ${installed} is installed; package.json pins ${version}: npm ci`);
    writeFileSync(
      join(folder, 'package.json'),
      JSON.stringify({ name, version, type: 'module', exports: { '.': './index.mjs' } }, null, 2),
    );
    sizes[name] = Object.values(result.metafile.outputs)[0]?.bytes ?? 0;
  }
  return sizes;
}

class PowertoolsLocalBundling implements ILocalBundling {
  constructor(private readonly version: string) {}

  tryBundle(outputDir: string): boolean {
    buildPowertoolsLayer(outputDir, this.version);
    return true;
  }
}

const LAYER_ID = 'PowertoolsLayer';

/**
 * The stage's Powertools layer: one in the stage's root stack, made on first use, which
 * functions in nested stacks reference too (ServiceFunction passes its runtime and architecture).
 */
export function powertoolsLayer(scope: Construct, runtime: Runtime, architecture: Architecture): LayerVersion {
  let root = Stack.of(scope);
  while (root.nestedStackParent) root = root.nestedStackParent;
  const existing = root.node.tryFindChild(LAYER_ID);
  if (existing instanceof LayerVersion) return existing;
  const version = powertoolsVersion();
  return new LayerVersion(root, LAYER_ID, {
    description: `Powertools for AWS Lambda ${version}: ${POWERTOOLS_PACKAGES.join(', ')}`,
    compatibleRuntimes: [runtime],
    compatibleArchitectures: [architecture],
    // The source folder only anchors the asset; the hash is taken from the output.
    code: Code.fromAsset(dirname(fileURLToPath(import.meta.url)), {
      assetHashType: AssetHashType.OUTPUT,
      bundling: { image: runtime.bundlingImage, local: new PowertoolsLocalBundling(version) },
    }),
  });
}
