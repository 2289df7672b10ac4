/**
 * Every section of `npm run bench` runs, at the tiny sizes of `--smoke` (bench/settings.ts), and
 * prints its table (issue 38: the recipe-run and multi-part export sections had rotted unseen,
 * their engine processes unable to start). What the numbers say is not checked here: at these
 * sizes they mean nothing. That each section completes, fails none of its measurements and
 * prints a table under its heading is. Its twins run in the bench's own process (bench/twin-fork.ts):
 * forked, their module loads were most of the smoke's cost.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Each section's heading in the report, in the report's order. */
const HEADINGS = [
  '## Route handler bundles',
  '## What a request costs',
  '## What a job costs',
  '## Latency: API vs raw local DynamoDB',
  '## Mixed load',
  '## Import throughput',
  '## Data-quality rules',
  '## Recipe SQL analyzer',
  '## Recipe run',
  '## Multi-part export',
  '## Verdict',
];

/** Sections that print a line, not a table. */
const LINE_HEADINGS = ['## dps start'];

/** `npm run bench -- --smoke`: its exit code, its report (stdout) and the tail of its stderr. */
function smokeRun(): Promise<{ code: number | null; report: string; errors: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let report = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (report += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, report, errors }));
  });
}

/** The report's part under `heading`, up to the next section's heading. */
function sectionOf(report: string, heading: string): string {
  const start = report.indexOf(`\n${heading}`);
  if (start < 0) return '';
  const next = report.slice(start + 1).search(/\n## /);
  return next < 0 ? report.slice(start + 1) : report.slice(start + 1, start + 1 + next);
}

describe('npm run bench -- --smoke', () => {
  it('runs every section to its end and prints each one’s table', { timeout: 600_000 }, async () => {
    const { code, report, errors } = await smokeRun();
    expect(code, `${report}\n${errors}`).toBe(0);
    expect(report).not.toContain('measurement failed');
    for (const heading of HEADINGS.slice(0, -1)) {
      const section = sectionOf(report, heading);
      expect(section, `${heading} is missing from the report:\n${report}`).not.toBe('');
      // A markdown table: its header row, its rule and at least one row.
      expect(section, section).toMatch(/\n\|.*\|\n\|[-:|]+\|\n\|.*\|/);
    }
    for (const heading of LINE_HEADINGS)
      expect(sectionOf(report, heading), `${heading} is missing from the report:\n${report}`).not.toBe('');
    const verdict = sectionOf(report, '## Verdict');
    expect(verdict).not.toMatch(/^- FAIL/m);
    expect(verdict.match(/^- /gm)?.length ?? 0).toBeGreaterThanOrEqual(HEADINGS.length - 1);
  });
});
