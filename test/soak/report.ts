/** The soak's report: samples, answers per status, latencies per kind, what grew, examples, verdict. */
import { textTable } from '../support/text-table';
import type { Sample } from './probe';
import type { Tally } from './tally';
import { historyItems, steadyItems, type Verdict } from './verdict';

function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

const round = (value: number, digits = 0) => Number(value.toFixed(digits));

function minutes(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

function samplesTable(samples: readonly Sample[], tenant: string, hostileTenant: string): string {
  const items = (sample: Sample, of: string) =>
    Object.values(sample.itemsByTenant[of] ?? {}).reduce((sum, count) => sum + count, 0);
  return textTable([
    [
      'sample',
      'at',
      'RSS MB',
      'engines',
      'fds',
      'scratch',
      'scratch MB',
      'S3 MB',
      'items',
      `${tenant} steady`,
      'export history',
      hostileTenant,
    ],
    ...samples.map((sample) => [
      sample.label,
      minutes(sample.atSeconds),
      round(sample.rssMb),
      sample.children,
      sample.fds,
      sample.scratchFolders,
      round(sample.scratchMb, 1),
      round(sample.storeMb, 1),
      sample.items,
      steadyItems(sample, tenant),
      historyItems(sample, tenant),
      items(sample, hostileTenant),
    ]),
  ]);
}

/** Item kinds whose count differs between the first and the last sample. */
function itemChanges(first: Sample, last: Sample): string {
  const rows: (string | number)[][] = [];
  for (const tenant of new Set([...Object.keys(first.itemsByTenant), ...Object.keys(last.itemsByTenant)]))
    for (const kind of new Set([
      ...Object.keys(first.itemsByTenant[tenant] ?? {}),
      ...Object.keys(last.itemsByTenant[tenant] ?? {}),
    ])) {
      const before = first.itemsByTenant[tenant]?.[kind] ?? 0;
      const after = last.itemsByTenant[tenant]?.[kind] ?? 0;
      if (before !== after) rows.push([tenant, kind, before, after]);
    }
  return rows.length === 0 ? '  none' : textTable([['tenant', 'kind', 'start', 'end'], ...rows]);
}

export function printReport(
  samples: readonly Sample[],
  tally: Tally,
  verdict: Verdict,
  options: { readonly seconds: number; readonly tenant: string; readonly hostileTenant: string },
): void {
  print(
    `\n${tally.requests} requests in ${minutes(options.seconds)} (${round(tally.requests / Math.max(1, options.seconds), 1)}/s), ${tally.hostileRequests} hostile (${round((100 * tally.hostileRequests) / Math.max(1, tally.requests), 1)} %)\n`,
  );
  print(samplesTable(samples, options.tenant, options.hostileTenant));
  const [first, last] = [samples[0], samples.at(-1)];
  if (first !== undefined && last !== undefined && first !== last) {
    print('\nitems that changed between the first and the last sample');
    print(itemChanges(first, last));
  }
  print('\nanswers by status');
  print(textTable([['status', 'count'], ...[...tally.byStatus.entries()].sort(([a], [b]) => a.localeCompare(b))]));
  print('\nlatency by kind of request (ms)');
  print(
    textTable([
      ['kind', 'requests', 'p50', 'p95', 'p99', 'max'],
      ...tally
        .latencyRows()
        .map((row) => [row.kind, row.count, round(row.p50), round(row.p95), round(row.p99), round(row.max)]),
    ]),
  );
  const lists: [string, ReadonlyMap<string, string>][] = [
    ['5xx answers', tally.examples.serverErrors],
    ['requests without an answer', tally.examples.noAnswer],
    ['ordinary requests refused', tally.examples.refusedNormal],
    ['answers that broke a rule', tally.examples.ruleViolations],
  ];
  for (const [title, examples] of lists) {
    if (examples.size === 0) continue;
    print(`\n${title} (one example per kind and status)`);
    for (const example of examples.values()) print(`  ${example}`);
  }
  print(`\nverdict: ${verdict.passed ? 'PASS' : 'FAIL'}`);
  for (const line of verdict.lines) print(`  ${line}`);
}
