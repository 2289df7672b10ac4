/**
 * `npm run bench -- quality` (issue 43): what eight data-quality rules (one of each kind) add
 * to an import of the bench CSV (1M rows unless BENCH_QUALITY_ROWS says), beside the same
 * import of the same file into a table without rules, in the same twin, rounds alternating
 * which goes first. Reported: the imports' medians and the added time as a ratio (target
 * ≤ 15 %), and the check's own time (the report's duration) and each rule's.
 */
import { TOGGLE_CACHE_MS } from '../shared/features/store';
import type { QualityRuleDefinition } from '../shared/model/quality-rule';
import { ApiClient } from '../test/support/api-client';
import { exchangeToken } from '../test/support/harness';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bareDuckDbCopy, bareDuckDbQueries, sqlLiteral } from './bare-duckdb';
import { ensureCsv } from './bench-csv';
import { SOURCE_BUCKET } from './import-protocol';
import { median, pipelineRun } from './import-throughput';
import { createdId, HTTP_MS, sleep, tableOverSource, upload, withImportTwin, withTimeout } from './import-twin';

/** Issue 43: eight rules on a 1M-row import add at most this share to its time. */
export const QUALITY_OVERHEAD_TARGET = 0.15;

export interface QualitySettings {
  readonly rows: number;
  readonly runs: number;
  readonly warmupRounds: number;
}

/** One round: the import without rules and with them (ms), and the checked version's report. */
interface QualityRound {
  readonly plainMs: number;
  readonly checkedMs: number;
  readonly checkMs: number;
  readonly ruleMs: Readonly<Record<string, number>>;
}

export interface QualityReport {
  readonly settings: QualitySettings;
  readonly rounds: readonly QualityRound[];
  /** DuckDB alone, in this process, running the eight rules' queries over the same data as Parquet (ms, one per run). */
  readonly rawCheckMs: readonly number[];
}

/** One rule of each kind over the bench CSV (id,name,amount,day,flag,category,comment); all pass, as clean data does. */
const RULES: readonly (QualityRuleDefinition & { readonly name: string })[] = [
  { name: 'name present', kind: 'not_null', column: 'name' },
  { name: 'id unique', kind: 'unique', columns: ['id'] },
  {
    name: 'known category',
    kind: 'accepted_values',
    column: 'category',
    values: ['books', 'electronics', 'garden', 'grocery', 'health', 'home'].concat([
      'kitchen',
      'music',
      'office',
      'outdoor',
      'sports',
      'toys',
    ]),
  },
  { name: 'amount in range', kind: 'range', column: 'amount', min: -2000, max: 8000 },
  { name: 'name shape', kind: 'pattern', column: 'name', pattern: '[A-Z][a-z]+ [A-Z][A-Za-z-]+' },
  { name: 'some rows', kind: 'row_count_between', min: 1 },
  { name: 'recent day', kind: 'freshness', column: 'day', max_age_seconds: 10 * 365 * 24 * 3600 },
  { name: 'no huge amount', kind: 'custom_sql', sql: 'SELECT * FROM CurrentTable WHERE amount > 100000' },
];

const SOURCE_FOLDER = 'quality';

export async function measureQuality(settings: QualitySettings): Promise<QualityReport> {
  const csv = await ensureCsv(settings.rows);
  return withImportTwin('dps-bench-quality-', async ({ child, s3, api, ready }) => {
    await upload(s3, SOURCE_BUCKET, `${SOURCE_FOLDER}/data.csv`, csv.path, 'text/csv');
    const platform = new ApiClient(
      ready.apiUrl,
      await withTimeout(
        exchangeToken(ready.apiUrl, ready.platformAdmin.clientId, ready.platformAdmin.clientSecret),
        HTTP_MS,
        'token exchange',
      ),
      ready.platformAdmin.tenantId,
    );
    const on = await platform.call('setFeatureToggleOverride', {
      params: { toggle_name: 'data_quality', tenant_id: ready.adminTenantId },
      body: { strategy: 'on' },
    });
    if (on.status !== 200) throw new Error(`toggle data_quality: ${on.status} ${on.text}`);
    await sleep(TOGGLE_CACHE_MS + 100);
    const plainId = await tableOverSource(api, ready, SOURCE_FOLDER, 'bench without rules');
    const checkedId = await tableOverSource(api, ready, SOURCE_FOLDER, 'bench with rules');
    for (const { name, ...rule } of RULES)
      await createdId(
        'createQualityRule',
        api.call('createQualityRule', { body: { name, severity: 'warn', data_table_id: checkedId, ...rule } }),
      );
    const rounds: QualityRound[] = [];
    for (let index = 0; index < settings.warmupRounds + settings.runs; index++) {
      // Which goes first alternates: a drift of the machine's load falls on both alike.
      const order = index % 2 === 0 ? [plainId, checkedId] : [checkedId, plainId];
      const times = new Map<number, { ms: number; version: number }>();
      for (const tableId of order) {
        const run = await pipelineRun(api, child, tableId, settings.rows, 25);
        times.set(tableId, { ms: run.ms, version: run.versionNumber });
      }
      const checked = times.get(checkedId)!;
      const version = await api.call('getDataVersion', {
        params: { data_table_id: checkedId, version_number: checked.version },
      });
      const quality = version.body.quality;
      if (version.status !== 200 || !quality) throw new Error(`the checked version has no report: ${version.text}`);
      if (quality.results.length !== RULES.length || quality.status !== 'PASSED')
        throw new Error(`the check did not pass every rule: ${JSON.stringify(quality.results)}`);
      if (index < settings.warmupRounds) continue;
      rounds.push({
        plainMs: times.get(plainId)!.ms,
        checkedMs: checked.ms,
        checkMs: quality.duration_ms,
        ruleMs: Object.fromEntries(quality.results.map((result) => [result.rule_name, result.duration_ms])),
      });
    }
    return { settings, rounds, rawCheckMs: await rawChecks(csv.path, settings.runs) };
  });
}

/**
 * The eight rules as the fewest queries DuckDB needs for them, written by hand: one scan for
 * the seven that count rows or measure the table, a GROUP BY for `unique`. What DuckDB alone
 * takes for them over the same rows as Parquet is the floor of what any check adds to an
 * import that waits for it: the part of the gap that is the engine's, not the service's.
 */
const RAW_CHECKS = [
  `SELECT count(*) FILTER (WHERE name IS NULL),
     count(*) FILTER (WHERE category NOT IN ('books','electronics','garden','grocery','health','home','kitchen','music','office','outdoor','sports','toys')),
     count(*) FILTER (WHERE amount < -2000 OR amount > 8000),
     count(*) FILTER (WHERE NOT regexp_full_match(name, '[A-Z][a-z]+ [A-Z][A-Za-z-]+')),
     count(*), max(day), count(*) FILTER (WHERE amount > 100000)
   FROM t`,
  'SELECT count(*) FROM (SELECT id FROM t GROUP BY id HAVING count(*) > 1)',
];

async function rawChecks(csvPath: string, runs: number): Promise<number[]> {
  const folder = await mkdtemp(join(tmpdir(), 'dps-bench-quality-raw-'));
  const parquet = join(folder, 'data.parquet');
  try {
    await bareDuckDbCopy(
      [],
      `COPY (SELECT * FROM read_csv(${sqlLiteral(csvPath)})) TO ${sqlLiteral(parquet)} (FORMAT parquet)`,
    );
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      await bareDuckDbQueries([`CREATE VIEW t AS SELECT * FROM read_parquet(${sqlLiteral(parquet)})`], RAW_CHECKS);
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The time the rules add: median with rules over median without, less one. */
export function qualityOverhead({ rounds }: QualityReport): number {
  return median(rounds.map((round) => round.checkedMs)) / median(rounds.map((round) => round.plainMs)) - 1;
}

const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)} %`;

export function qualitySection(report: QualityReport): string[] {
  const { rounds, settings } = report;
  const plain = median(rounds.map((round) => round.plainMs));
  const checked = median(rounds.map((round) => round.checkedMs));
  const check = median(rounds.map((round) => round.checkMs));
  const lines = [
    '## Data-quality rules',
    '',
    `${settings.rows} rows of the bench CSV imported through the API (POST to COMPLETED) into a table without rules and one with eight (one of each kind, all passing, severity warn), ${settings.runs} rounds after ${settings.warmupRounds} discarded, alternating which goes first. The check is the rules' engine process over the version's data.parquet (its report's duration_ms).`,
    '',
    '| import | median ms | min ms |',
    '|---|--:|--:|',
    `| without rules | ${plain.toFixed(0)} | ${Math.min(...rounds.map((round) => round.plainMs)).toFixed(0)} |`,
    `| with eight rules | ${checked.toFixed(0)} | ${Math.min(...rounds.map((round) => round.checkedMs)).toFixed(0)} |`,
    `| the check alone | ${check.toFixed(0)} | ${Math.min(...rounds.map((round) => round.checkMs)).toFixed(0)} |`,
    `| DuckDB alone, the same checks as hand-written queries over the same rows (the bound) | ${median(report.rawCheckMs).toFixed(0)} | ${Math.min(...report.rawCheckMs).toFixed(0)} |`,
    '',
    `Added time: ${percent(qualityOverhead(report))} of the import without rules (medians; per round, the median of the rounds' own ratios is ${percent(median(rounds.map((round) => round.checkedMs / round.plainMs - 1)))}); the check alone is ${percent(check / plain)} of it – target ≤ ${percent(QUALITY_OVERHEAD_TARGET)}. The check runs while the version's files upload, so it adds less than its own time where the uploads take long.`,
    '',
    '| rule | median ms (rules of the shared scan each show the scan) |',
    '|---|--:|',
  ];
  for (const name of Object.keys(rounds[0]?.ruleMs ?? {}))
    lines.push(`| ${name} | ${median(rounds.map((round) => round.ruleMs[name] ?? 0)).toFixed(1)} |`);
  return lines;
}

export function qualityVerdict(report: QualityReport | Error): string {
  if (report instanceof Error) return `FAIL: the data-quality measurement failed: ${report.message}`;
  const overhead = qualityOverhead(report);
  const bound = median(report.rawCheckMs) / median(report.rounds.map((round) => round.plainMs));
  return `${overhead <= QUALITY_OVERHEAD_TARGET ? 'ok' : 'above target (not enforced)'}: eight data-quality rules add ${percent(overhead)} to a ${report.settings.rows}-row import (medians) – target ≤ ${percent(QUALITY_OVERHEAD_TARGET)}; bound: DuckDB alone takes ${percent(bound)} of the import for the same checks`;
}
