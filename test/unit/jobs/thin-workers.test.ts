/**
 * Workers are as thin as route handlers (issue 41, item 2): a job's work lives in its
 * aggregate (shared/<aggregate>/*-work.ts, shared/datasets/recipe-build.ts), and every module
 * under functions/jobs/ only wires a declaration to it. This keeps it so: each module has at
 * most MAX_CODE_LINES lines of code besides imports and comments, declares no function of its
 * own (no `function`, no arrow with a block body) and awaits nothing; the work it would await
 * belongs in the aggregate.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIRECTORY = join(__dirname, '../../../functions/jobs');
/** The longest wiring today is the Fargate task's table of workers (one line per worker). */
const MAX_CODE_LINES = 12;

/** The module's code lines: comments, blank lines and import statements left out. */
function codeLines(source: string): string[] {
  const withoutComments = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const withoutImports = withoutComments.replace(/^import\s[\s\S]*?from\s+'[^']+';$/gm, '');
  return withoutImports.split('\n').filter((line) => line.trim() !== '');
}

/** What in `lines` is logic rather than wiring. */
function logicIn(lines: readonly string[]): string[] {
  return lines.filter((line) => /\bfunction\b|=>\s*\{|\bawait\b/.test(line));
}

const modules = readdirSync(DIRECTORY).filter((name) => name.endsWith('.ts'));

describe('functions/jobs/ is wiring only', () => {
  it('finds the workers', () => {
    expect(modules).toContain('import-data-version.ts');
    expect(modules.length).toBeGreaterThanOrEqual(10);
  });

  it.each(modules)('%s is short, declares no function and awaits nothing', (name) => {
    const lines = codeLines(readFileSync(join(DIRECTORY, name), 'utf8'));
    expect(logicIn(lines), `logic in functions/jobs/${name}: move it into its aggregate`).toEqual([]);
    expect(lines.length, `functions/jobs/${name} has ${lines.length} lines of code`).toBeLessThanOrEqual(
      MAX_CODE_LINES,
    );
  });

  it('the check sees the logic a worker held before it moved', () => {
    const before = [
      'export const handler = jobWorker(job, first, async ({ job, params }) => {',
      '  const version = await versions.get(job.tenant_id, params.id);',
      '  return { progress, output: version };',
      '});',
      'function prefixOf(tenantId: string): string {',
    ];
    expect(logicIn(codeLines(before.join('\n')))).toHaveLength(3);
  });
});
