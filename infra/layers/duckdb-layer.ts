/**
 * The DuckDB engine for job workers as a Lambda layer: @duckdb/node-api at the exact version
 * the project pins, with the linux-arm64 (glibc) native binding Lambda needs, whatever machine
 * synthesizes. Workers that use it leave @duckdb/* out of their bundle (infra/bundling.ts);
 * the nodejs22.x runtime resolves it from /opt/nodejs/node_modules, for ES modules too.
 *
 * The asset is produced by local bundling (no Docker): an npm install for the Lambda platform,
 * cached under node_modules/.cache (lambda-packages.ts) and copied into the asset folder.
 * `npm ci` fills that cache once (postinstall), so nothing after it needs the network.
 */
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, type ILocalBundling } from 'aws-cdk-lib';
import { Code, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { ARCHITECTURE, PROJECT_ROOT, RUNTIME } from '../stacks/service-function';
import { installForLambda, LAMBDA_PLATFORM, type LambdaPackage } from './lambda-packages';

export const DUCKDB_PACKAGE = '@duckdb/node-api';
/** The native binding the layer must carry; DuckDB's loader picks it on linux-arm64 with glibc. */
export const DUCKDB_BINDING = `@duckdb/node-bindings-${LAMBDA_PLATFORM.os}-${LAMBDA_PLATFORM.cpu}`;

const CACHE_ROOT = join(PROJECT_ROOT, 'node_modules', '.cache');

/** The version package.json pins (exactly: the layer and the local engine must be the same DuckDB). */
export function duckDbVersion(packageJsonPath = join(PROJECT_ROOT, 'package.json')): string {
  const manifest = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { dependencies?: Record<string, string> };
  const version = manifest.dependencies?.[DUCKDB_PACKAGE];
  if (version === undefined) throw new Error(`${DUCKDB_PACKAGE} is not a dependency in ${packageJsonPath}`);
  return version;
}

function packageVersion(nodeModules: string, name: string): string | undefined {
  const manifest = join(nodeModules, name, 'package.json');
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : undefined;
}

/**
 * The API at the pinned version, the binding of the Lambda platform (at the version the API's
 * node-bindings asks for) and no binding of another platform, which would only weigh.
 */
function verifyDuckDb(version: string): LambdaPackage['verify'] {
  return (nodeModules) => {
    const installed = packageVersion(nodeModules, DUCKDB_PACKAGE);
    if (installed !== version) throw new Error(`${DUCKDB_PACKAGE} ${installed ?? 'is missing'}, expected ${version}`);
    const bindingsVersion = packageVersion(nodeModules, '@duckdb/node-bindings');
    if (
      packageVersion(nodeModules, DUCKDB_BINDING) !== bindingsVersion ||
      !existsSync(join(nodeModules, DUCKDB_BINDING, 'duckdb.node'))
    ) {
      throw new Error(
        `${DUCKDB_BINDING} ${bindingsVersion ?? ''} with duckdb.node is missing: npm did not install the Lambda platform's binding`,
      );
    }
    const bindings = readdirSync(join(nodeModules, '@duckdb')).filter((name) => name.startsWith('node-bindings-'));
    const foreign = bindings.filter((name) => `@duckdb/${name}` !== DUCKDB_BINDING);
    if (foreign.length > 0)
      throw new Error(
        `bindings for other platforms were installed (${foreign.join(', ')}); npm 10.3 or newer is needed for --libc`,
      );
  };
}

/**
 * The folder of the layer's installation for Lambda, installed into the cache when it holds
 * none. `npm ci` fills the cache (the postinstall script, infra/layers/prefetch.ts), so synth
 * and the infrastructure tests need no network afterwards.
 */
export function installDuckDbForLambda(version = duckDbVersion()): string {
  return installForLambda({ name: DUCKDB_PACKAGE, version, verify: verifyDuckDb(version) }, CACHE_ROOT);
}

/** Fills the asset folder from the cached installation; never falls back to Docker. */
class DuckDbLocalBundling implements ILocalBundling {
  constructor(private readonly version: string) {}

  tryBundle(outputDir: string): boolean {
    cpSync(join(installDuckDbForLambda(this.version), 'nodejs'), join(outputDir, 'nodejs'), { recursive: true });
    return true;
  }
}

export function duckDbLayer(scope: Construct, id: string): LayerVersion {
  const version = duckDbVersion();
  return new LayerVersion(scope, id, {
    description: `DuckDB engine: ${DUCKDB_PACKAGE} ${version} for ${LAMBDA_PLATFORM.os}-${LAMBDA_PLATFORM.cpu} (${LAMBDA_PLATFORM.libc})`,
    compatibleRuntimes: [RUNTIME],
    compatibleArchitectures: [ARCHITECTURE],
    // The source folder only anchors the asset; its content comes from npm. The hash is taken
    // from the output, so a different installation is a different layer version.
    code: Code.fromAsset(fileURLToPath(new URL('.', import.meta.url)), {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Required by the API but never used: local bundling either succeeds or throws.
        image: RUNTIME.bundlingImage,
        local: new DuckDbLocalBundling(version),
      },
    }),
  });
}
