/**
 * `npm run bench -- cli-start`: how long `dps --help` takes, as a person starts it from the
 * repository (node clients/cli/bin/dps.js, its bundle already built). Issue 42 asks for at most
 * 0.3 s; reported, not enforced (a busy machine would fail it for nothing).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildCli } from '../clients/cli/build.mjs';

/** `dps --help` within this, in ms (issue 42). */
export const CLI_START_TARGET_MS = 300;

export interface CliStartReport {
  readonly runs: number;
  readonly medianMs: number;
  readonly maxMs: number;
}

const BIN = fileURLToPath(new URL('../clients/cli/bin/dps.js', import.meta.url));

export async function measureCliStart(runs = 10): Promise<CliStartReport> {
  await buildCli();
  // One run first: the file system cache warm, as for a person's second command.
  execFileSync(process.execPath, [BIN, '--help'], { stdio: 'ignore' });
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    execFileSync(process.execPath, [BIN, '--help'], { stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { runs, medianMs: times[Math.floor(runs / 2)]!, maxMs: times[runs - 1]! };
}

export function cliStartSection(report: CliStartReport): string[] {
  const verdict = report.medianMs <= CLI_START_TARGET_MS ? 'ok' : 'over target';
  return [
    '## dps start',
    '',
    `\`dps --help\` (node clients/cli/bin/dps.js, bundle built), ${report.runs} runs: median ${report.medianMs.toFixed(0)} ms, slowest ${report.maxMs.toFixed(0)} ms; target ${CLI_START_TARGET_MS} ms: ${verdict}`,
  ];
}
