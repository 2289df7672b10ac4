/**
 * Which Chromium a browser test drives (through playwright-core), found so that `npm ci` is all the
 * set-up a machine needs: a system Chromium where there is one, otherwise the headless Chromium that
 * the `@sparticuz/chromium` dev dependency carries, brotli-packed, inside its npm tarball.
 */
import {
  accessSync,
  constants,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import * as z from 'zod';

/** Debian's chromium package installs here (what CI machines used to apt-get). */
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

const PackageManifest = z.looseObject({ version: z.string() });

/**
 * The path of the Chromium executable to launch: `CHROMIUM` from the environment when set (taken
 * as given, so a wrong one fails loudly at launch), else a system `/usr/bin/chromium`, else the
 * packaged one, unpacked on first use.
 */
export async function chromiumExecutable(): Promise<string> {
  const chosen = process.env['CHROMIUM'];
  if (chosen) return chosen;
  if (isExecutable(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM;
  return unpackedPackagedChromium();
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Unpacks `bin/chromium.br` of `@sparticuz/chromium` into `node_modules/.cache`, once per package
 * version. The package's own `executablePath()` is not used: it writes to a fixed `/tmp/chromium`
 * and reuses whatever file is there, so two test runs on one machine (or an older version left
 * behind) could launch a half-written or different binary. Here each version has its own folder,
 * and the binary appears there only whole (written aside, then renamed, which is atomic).
 */
async function unpackedPackagedChromium(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `no ${SYSTEM_CHROMIUM} and @sparticuz/chromium ships a Chromium for x64 Linux only (this is ${process.platform}-${process.arch}): set CHROMIUM to a Chromium executable`,
    );
  }
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const packageDir = join(dirname(entry), '..');
  const { version } = PackageManifest.parse(JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')));
  // packageDir is node_modules/@sparticuz/chromium: its .cache sibling is node_modules/.cache.
  const executable = join(packageDir, '..', '..', '.cache', `sparticuz-chromium-${version}`, 'chromium');
  if (existsSync(executable)) return executable;
  mkdirSync(dirname(executable), { recursive: true });
  const partial = `${executable}.${process.pid}.partial`;
  try {
    await pipeline(
      createReadStream(join(packageDir, 'bin', 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    renameSync(partial, executable);
  } finally {
    rmSync(partial, { force: true });
  }
  return executable;
}
