/**
 * npm packages installed for the Lambda platform rather than for the machine that synthesizes:
 * native modules ship their binary as optional packages per os/cpu/libc, and npm picks those
 * of the platform it is told (npm 10.3+: --os, --cpu, --libc). Functions run on arm64 Amazon
 * Linux 2023, which is glibc.
 *
 * An installation is cached under node_modules/.cache, keyed by package, version and
 * platform, so repeated synths (every infra test file) install once per machine.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const LAMBDA_PLATFORM = { os: 'linux', cpu: 'arm64', libc: 'glibc' } as const;

export interface LambdaPackage {
  readonly name: string;
  /** Exact version: a cached installation is reused for as long as the version stands. */
  readonly version: string;
  /**
   * Checks an installation (its node_modules folder) and throws when it is unusable for the
   * platform. Cached installations are checked again before reuse.
   */
  readonly verify: (nodeModules: string) => void;
}

/** Bound of one installation: a registry that does not answer fails it rather than hanging npm ci. */
const INSTALL_TIMEOUT_MS = 4 * 60_000;

const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Name of the cache folder of an installation: duckdb-node-api-1.5.5-r.5-linux-arm64. */
function cacheName(pkg: Pick<LambdaPackage, 'name' | 'version'>): string {
  return `${pkg.name.replace(/^@/, '').replace(/\//g, '-')}-${pkg.version}-${LAMBDA_PLATFORM.os}-${LAMBDA_PLATFORM.cpu}`;
}

/**
 * The folder holding `nodejs/node_modules` with the package installed for Lambda (the layout
 * a Node.js layer needs), installing it first when the cache has no verified copy.
 */
export function installForLambda(pkg: LambdaPackage, cacheRoot: string): string {
  if (!EXACT_VERSION.test(pkg.version))
    throw new Error(`${pkg.name}: "${pkg.version}" is not an exact version; pin it in package.json`);
  const target = join(cacheRoot, cacheName(pkg));
  if (isVerified(pkg, target)) return target;
  // Replace an entry damaged by hand. Checked again: one that another process has just
  // published verifies, and is kept.
  if (existsSync(target) && !isVerified(pkg, target)) rmSync(target, { recursive: true, force: true });
  mkdirSync(cacheRoot, { recursive: true });
  // Install beside the cache entry and publish it with one rename, so a concurrent synth
  // (test files run in parallel processes) never sees half an installation.
  const staging = mkdtempSync(`${target}.installing-`);
  try {
    npmInstall(pkg, join(staging, 'nodejs'));
    pkg.verify(join(staging, 'nodejs', 'node_modules'));
    try {
      renameSync(staging, target);
    } catch (error) {
      // Another process published the same installation first.
      if (!isVerified(pkg, target)) throw error;
    }
    return target;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function isVerified(pkg: LambdaPackage, folder: string): boolean {
  const nodeModules = join(folder, 'nodejs', 'node_modules');
  if (!existsSync(nodeModules)) return false;
  try {
    pkg.verify(nodeModules);
    return true;
  } catch {
    return false;
  }
}

function npmInstall(pkg: LambdaPackage, prefix: string): void {
  process.stderr.write(
    `Installing ${pkg.name}@${pkg.version} for ${LAMBDA_PLATFORM.os}-${LAMBDA_PLATFORM.cpu} (${LAMBDA_PLATFORM.libc}) into ${prefix}\n`,
  );
  const args = [
    'install',
    `${pkg.name}@${pkg.version}`,
    // An explicit prefix: without one npm would look upwards for a project and install there.
    `--prefix=${prefix}`,
    '--no-save',
    '--no-package-lock',
    '--omit=dev',
    `--os=${LAMBDA_PLATFORM.os}`,
    `--cpu=${LAMBDA_PLATFORM.cpu}`,
    `--libc=${LAMBDA_PLATFORM.libc}`,
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    // Without the registry npm would wait minutes per request (its defaults: 5 min, 2 retries).
    '--fetch-timeout=60000',
    '--fetch-retries=1',
  ];
  mkdirSync(prefix, { recursive: true });
  try {
    execFileSync('npm', args, {
      cwd: prefix,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: INSTALL_TIMEOUT_MS,
    });
  } catch (error) {
    const { stderr, message, code } = error as { stderr?: string; message: string; code?: string };
    const reason =
      code === 'ETIMEDOUT' ? `no answer within ${INSTALL_TIMEOUT_MS / 60_000} minutes` : stderr?.trim() || message;
    throw new Error(
      `npm install of ${pkg.name}@${pkg.version} for Lambda failed (the npm registry must be reachable): ${reason}`,
      { cause: error },
    );
  }
}
