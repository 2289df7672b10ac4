/**
 * `npm run fuzz`: the long fuzz run against a twin it starts in this process.
 *
 *   npm run fuzz [-- --requests 20000] [--seed 42] [--concurrency 8]
 *
 * Prints the number of requests, the answers per status and per mutation, the slowest
 * operations, and every request whose answer broke a rule (5xx, a 4xx that is not a problem
 * with a catalogue code, an internal name); exits 1 when there is one.
 */
import { parseArgs } from 'node:util';
import { textTable as table } from '../support/text-table';

// The service logs one line per request; twenty thousand of them would bury the report.
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    concurrency: { type: 'string', default: '8' },
  },
});
const total = Number(values.requests);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);

// Imported after the log level is set: the logger reads it once.
const { startTestTwin } = await import('../support/harness');
const { enableFuzzedFeatures, FUZZ_BUCKET, FUZZ_TWIN_ENVIRONMENT, fuzzFixtures, stillServes } =
  await import('./fixtures');
const { fuzzCases, fuzzPlan } = await import('./requests');
const { describeOutcome, sendAll } = await import('./check');
const { EXPENSIVE_SQL, isBoundedAnswer, probeExpensiveSql } = await import('./expensive-sql');
const { BodyDepth } = await import('./depth');

function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/**
 * The expensive-SQL corpus (expensive-sql.ts) to the analyzer, recipe creates and version
 * updates, one query at a time; prints each answer and the process's memory, and answers how
 * many were no catalogue code or save.
 */
async function sendExpensiveSql(): Promise<number> {
  const residentBefore = process.memoryUsage().rss;
  const rows: (string | number)[][] = [['query', 'operation', 'answer', 'ms']];
  let unbounded = 0;
  for (const sql of EXPENSIVE_SQL) {
    for (const outcome of await probeExpensiveSql(env.admin, sql)) {
      if (!isBoundedAnswer(outcome)) unbounded += 1;
      rows.push([outcome.name, outcome.operation, `${outcome.status} ${outcome.code ?? ''}`.trim(), outcome.ms]);
    }
  }
  const grownMb = Math.round((process.memoryUsage().rss - residentBefore) / 2 ** 20);
  print('\nexpensive SQL (test/fuzz/expensive-sql.ts)');
  print(table(rows));
  print(`${unbounded} answers neither a catalogue code nor a save; the twin grew by ${grownMb} MB over them`);
  return unbounded;
}

const env = await startTestTwin({ buckets: [FUZZ_BUCKET], environment: FUZZ_TWIN_ENVIRONMENT });
try {
  // The retention and assistant routes reach their own checks, not 10-1501.
  await enableFuzzedFeatures(env);
  const { document, context } = await fuzzFixtures(env);
  const cases = fuzzCases(document, context);
  const perCase = Math.ceil(total / cases.length);
  print(
    `fuzzing ${cases.length} cases (operation × mutation), ${perCase} requests each, seed ${seed}, ${concurrency} in flight`,
  );

  const byStatus = new Map<string, number>();
  const byMutation = new Map<string, number>();
  const durations = new Map<string, number[]>();
  const failures = new Map<string, string>();
  const depth = new BodyDepth();
  let sent = 0;
  const started = performance.now();
  await sendAll(env.admin, fuzzPlan(cases, { seed, perCase }), concurrency, (outcome) => {
    sent += 1;
    const status =
      outcome.request.method === 'HEAD'
        ? `${outcome.status} (HEAD, no body)`
        : `${outcome.status} ${outcome.code ?? ''}`.trim();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    byMutation.set(outcome.request.mutation, (byMutation.get(outcome.request.mutation) ?? 0) + 1);
    const key = `${outcome.request.method} ${outcome.request.operationId}`;
    const times = durations.get(key) ?? [];
    times.push(outcome.durationMs);
    durations.set(key, times);
    depth.add(outcome);
    // One example per operation, mutation and kind of violation is enough to act on.
    const [violation] = outcome.violations;
    if (violation !== undefined) {
      const kind = `${outcome.request.operationId} ${outcome.request.mutation} ${violation.slice(0, 40)}`;
      if (!failures.has(kind)) failures.set(kind, describeOutcome(outcome));
    }
    if (sent % 2_000 === 0) print(`  ${sent} requests, ${Math.round(sent / ((performance.now() - started) / 1000))}/s`);
  });
  const seconds = (performance.now() - started) / 1000;

  print(`\n${sent} requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s)\n`);
  print(
    table([
      ['status', 'count'],
      ...[...byStatus.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([status, count]) => [status, count]),
    ]),
  );
  print();
  print(
    table([['mutation', 'count'], ...[...byMutation.entries()].sort().map(([mutation, count]) => [mutation, count])]),
  );
  print('\nhow deep bodies get (requests of valid-shaped, hostile-field and unknown-field; then valid-shaped alone)');
  print(table(depth.table()));
  const slowest = [...durations.entries()]
    .map(([operation, times]) => {
      const sorted = [...times].sort((a, b) => a - b);
      return {
        operation,
        count: sorted.length,
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        max: sorted.at(-1) ?? 0,
      };
    })
    .sort((a, b) => b.p99 - a.p99)
    .slice(0, 10);
  print('\nslowest operations (ms)');
  print(
    table([
      ['operation', 'requests', 'p50', 'p99', 'max'],
      ...slowest.map((row) => [
        row.operation,
        row.count,
        Math.round(row.p50),
        Math.round(row.p99),
        Math.round(row.max),
      ]),
    ]),
  );

  const failed5xx = [...byStatus.entries()]
    .filter(([status]) => Number.parseInt(status, 10) >= 500 && status !== '501 10-1501')
    .reduce((sum, [, count]) => sum + count, 0);
  print(
    `\n${failed5xx} × 5xx (besides 501 10-1501, the catalogue's answer for connectors not built yet); ${failures.size} distinct violations`,
  );
  for (const failure of failures.values()) print(`  ${failure}`);
  const expensiveFailures = await sendExpensiveSql();
  await stillServes(env);
  print('a normal client is still served afterwards');
  process.exitCode = failures.size > 0 || expensiveFailures > 0 ? 1 : 0;
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await env.close();
}
