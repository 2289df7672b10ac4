/**
 * @dps/client's declarations as a TypeScript project that installs the package checks them:
 * they resolve under `moduleResolution` NodeNext (what `"type": "module"` projects use), so its
 * relative imports name their `.js` files; and they are checked themselves (`skipLibCheck`
 * false, TypeScript's default), so a generated type that refers to itself in a way TypeScript
 * refuses (render.ts, withRecursiveAliases) fails here. The package builds with both settings
 * (tsconfig.build.json); the repository's own check (Bundler, skipLibCheck) accepts either fault.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const project = fileURLToPath(new URL('../../../clients/typescript/tsconfig.build.json', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

describe('the @dps/client package', () => {
  it('type-checks as it is built: NodeNext resolution, declarations checked', async () => {
    const checked = await promisify(execFile)(process.execPath, [tsc, '-p', project, '--noEmit'], {
      encoding: 'utf8',
    }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(checked).toBe('');
  });
});
