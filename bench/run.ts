/**
 * `npm run bench`: bundle sizes of the route handlers as deployed, API latency as a ratio to the raw local store,
 * import throughput as a ratio to a bare script, and the recipe SQL analyzer's latency beside DuckDB's parser alone,
 * warm and cold, a recipe run as a ratio to a bare script and a multi-part export as a ratio to the raw SDK, in the
 * same run. Prints a markdown report to stdout. Exits non-zero when a handler bundle breaks the rule (over 300 KB or
 * a forbidden package), when a latency phase had failed requests, or when a measurement failed (its numbers would
 * mean nothing). The import ratio's target is reported, not enforced.
 *
 * `npm run bench -- import` (or `bundles`, `cost`, `cost-jobs`, `latency`, `quality`, `recipe-sql`, `recipe-run`,
 * `multipart-export`, several) runs only those sections; `scale` (10M rows, never in the default run; BENCH_SCALE_*
 * settings: bench/scale-report.ts) too. `--smoke` runs them at tiny sizes (bench/settings.ts), as the test suite does:
 * it checks that each completes and prints its tables, not what it measures. BENCH_COST_RUNS (10), BENCH_COST_WRITE_RUNS (3) and BENCH_COST_COLD_RUNS (3;
 * 0 skips cold starts) change the cost measurement (bench/cost-report.ts; JSON in bench/results/cost.json);
 * BENCH_COST_JOB_ROWS (200000) the jobs' (bench/cost-jobs.ts); BENCH_QUALITY_ROWS (1000000) and BENCH_QUALITY_RUNS (5) the
 * data-quality rules' (bench/quality.ts); BENCH_IMPORT_ROWS (1000000) and BENCH_IMPORT_RUNS (3)
 * the import's; BENCH_RECIPE_SQL_ROUNDS (20) and BENCH_RECIPE_SQL_COLD_STARTS (5) the analyzer's;
 * BENCH_RECIPE_RUN_ROWS (1000000) and BENCH_RECIPE_RUN_RUNS (5) the recipe run's; BENCH_EXPORT_ROWS (1000000),
 * BENCH_EXPORT_PARTS (5) and BENCH_EXPORT_RUNS (3) the multi-part export's.
 */
import { cpus } from 'node:os';
import { bundleBudget, LARGER_BUNDLE_BUDGETS } from '../infra/bundling';
import { MAX_BUNDLE_BYTES, measureBundles, type BundleReport } from './bundles';
import { jobCostSection } from './cost-jobs-report';
import { measureCost } from './cost-report';
import { measureImportThroughput, median, type ImportReport } from './import-throughput';
import { importRatios, importSection, PIPELINE_TARGET } from './import-throughput-report';
import { measureLatency, type LatencyReport, type PhaseResult } from './latency';
import { measureMixedLoad, mixedLoadSection, MIXED_LOAD_TARGET_RPS } from './latency-mixed';
import {
  measureMultipartExport,
  MULTIPART_EXPORT_TARGET,
  multipartExportRatio,
  multipartExportSection,
  type MultipartExportReport,
} from './multipart-export';
import {
  measureRecipeRun,
  RECIPE_RUN_TARGET,
  recipeRunRatio,
  recipeRunSection,
  SAMPLE_RUN_TARGET_MS,
  type RecipeRunReport,
} from './recipe-run';
import { measureQuality, qualitySection, qualityVerdict } from './quality';
import { measureRecipeSql, recipeSqlSection, type RecipeSqlReport } from './recipe-sql';
import { lineageSection, measureLineage } from './lineage';
import { benchScale } from './scale-report';
import { cliStartSection, measureCliStart } from './cli-start';
import { benchSettings, positiveSetting } from './settings';
import { runTwinsInProcess } from './twin-fork';

// Before anything loads the twin (the child process inherits them).
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const kb = (bytes: number): string => (bytes / 1024).toFixed(1);
const ms = (value: number): string => value.toFixed(2);
const times = (value: number): string => `${value.toFixed(2)}×`;
/** Issue 16: a GET's p50 and p99 at most this many times the raw GetItem's. */
const LATENCY_TARGET = 3;

function bundleSection(bundles: readonly BundleReport[]): string[] {
  const lines = [
    `## Route handler bundles`,
    '',
    `esbuild as CDK deploys them (infra/bundling.ts): bundle, minify, esm, platform node, target node22, \`@aws-sdk/*\` external, ESM banner, no source map. Limit ${kb(MAX_BUNDLE_BYTES)} KB; ${Object.entries(
      LARGER_BUNDLE_BUDGETS,
    )
      .map(([handler, bytes]) => `${handler} ${kb(bytes)} KB`)
      .join(', ')} (LARGER_BUNDLE_BUDGETS, with the reason).`,
    '',
    '| handler | deployed KB | with AWS SDK KB | within budget | forbidden packages | top 3 contributors (deployed, KB) |',
    '|---|--:|--:|:-:|---|---|',
  ];
  for (const bundle of bundles) {
    const top = bundle.top.map((contributor) => `${contributor.name} ${kb(contributor.bytes)}`).join(', ');
    const forbidden = bundle.forbidden.length === 0 ? 'none' : bundle.forbidden.join(', ');
    lines.push(
      `| ${bundle.handler} | ${kb(bundle.bytes)} | ${kb(bundle.bytesWithSdk)} | ${bundle.bytes <= bundleBudget(bundle.handler) ? 'yes' : '**NO**'} | ${forbidden} | ${top} |`,
    );
  }
  return lines;
}

function outboundPerRequest({ server }: PhaseResult): string {
  if (server.apiRequests === 0) return '–';
  return server.outbound
    .map((call) => `${call.operation} ×${(call.count / server.apiRequests).toFixed(2)} (${ms(call.meanMs)} ms)`)
    .join('<br>');
}

function latencySection({ settings, comparisons }: LatencyReport): string[] {
  const lines = [
    `## Latency: API vs raw local DynamoDB`,
    '',
    `autocannon, ${settings.connections} connections (the GET and its GetItem also at ${settings.loadConnections}), pipelining 1, ${settings.seconds} s per phase after a discarded ${settings.warmupSeconds} s warm-up; identical settings for API and raw.`,
    'Fairness on 2 cores: the twin (API emulation + handlers + local DynamoDB/KMS/S3, one event loop) runs in a child process started',
    'with startTwin(); autocannon runs in the bench process, so load generator and server each have a core. Phases alternate API, raw.',
    'Latencies are per-response hrtime values from autocannon (fractional ms), 2xx only. CPU % is of one core, taken with',
    'process.cpuUsage() in each process over the measured run (it can pass 100%: GC and libuv threads); twin near 100% with',
    'autocannon well below means the server is the bottleneck, not the load generator.',
    '',
    '| request | side | clients | p50 ms | p99 ms | req/s | ok | failed | twin CPU ms/req | twin CPU % | autocannon CPU % |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const phase of comparisons.flatMap(({ api, raw }) => [api, raw])) {
    lines.push(
      `| ${phase.name} | ${phase.side} | ${phase.connections} | ${ms(phase.p50)} | ${ms(phase.p99)} | ${phase.requestsPerSecond.toFixed(0)} | ${phase.ok} | ${phase.failed} | ` +
        `${ms(phase.serverCpuMsPerRequest)} | ${phase.serverCpuPercent.toFixed(0)} | ${phase.loadCpuPercent.toFixed(0)} |`,
    );
  }
  lines.push(
    '',
    '### Ratios API / raw',
    '',
    '| comparison | clients | p50 | p99 | req/s | twin CPU per request |',
    '|---|--:|--:|--:|--:|--:|',
  );
  for (const { api, raw } of comparisons) {
    lines.push(
      `| ${api.name} / ${raw.name} | ${api.connections} | ${times(api.p50 / raw.p50)} | ${times(api.p99 / raw.p99)} | ${times(api.requestsPerSecond / raw.requestsPerSecond)} | ` +
        `${times(api.serverCpuMsPerRequest / raw.serverCpuMsPerRequest)} |`,
    );
  }
  lines.push(
    '',
    '### Where the API time goes (server side, means over the phase)',
    '',
    'Held = time the API server holds a request (received → response finished). Outbound = SDK calls the authorizer and handler make',
    'per API request, with mean time to response headers; under load that includes waiting for the shared event loop.',
    '',
    '| request | clients | client p50 ms | held mean ms | outbound calls per request |',
    '|---|--:|--:|--:|---|',
  );
  for (const { api } of comparisons) {
    lines.push(
      `| ${api.name} | ${api.connections} | ${ms(api.p50)} | ${ms(api.server.apiMeanMs)} | ${outboundPerRequest(api)} |`,
    );
  }
  return lines;
}

/** Share of all cores busy over one second, from os.cpus() counters (the load average lags by minutes). */
async function machineBusy(): Promise<number> {
  const total = () =>
    cpus().reduce(
      (sum, { times: t }) => ({ idle: sum.idle + t.idle, all: sum.all + t.user + t.nice + t.sys + t.irq + t.idle }),
      { idle: 0, all: 0 },
    );
  const before = total();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const after = total();
  return 1 - (after.idle - before.idle) / (after.all - before.all);
}

const SECTIONS = [
  'bundles',
  'cost',
  'cost-jobs',
  'latency',
  'import',
  'quality',
  'recipe-sql',
  'lineage',
  'recipe-run',
  'multipart-export',
  'cli-start',
] as const;
/** Run only when asked for: `scale` (10M rows) takes many minutes. */
const ASKED_FOR_ONLY = ['scale'] as const;
type Section = (typeof SECTIONS)[number] | (typeof ASKED_FOR_ONLY)[number];

/** The flag of a smoke run (bench/settings.ts). */
const SMOKE = '--smoke';

function selectedSections(given: readonly string[]): ReadonlySet<Section> {
  const args = given.filter((arg) => arg !== SMOKE);
  const known: readonly string[] = [...SECTIONS, ...ASKED_FOR_ONLY];
  const unknown = args.filter((arg) => !known.includes(arg));
  if (unknown.length > 0)
    throw new Error(`unknown bench section(s): ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return new Set(args.length === 0 ? SECTIONS : (args as Section[]));
}

/** A section's report, or why its measurement failed (the other sections still print). */
async function attempt<T>(measure: () => Promise<T>): Promise<T | Error> {
  try {
    return await measure();
  } catch (error) {
    console.error(error);
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** A section's lines, or why its measurement failed; nothing when it was not asked for. */
function sectionLines<T>(title: string, result: T | Error | undefined, lines: (report: T) => string[]): string[] {
  if (result === undefined) return [];
  return result instanceof Error
    ? [title, '', `The measurement failed: ${result.message}`, '']
    : [...lines(result), ''];
}

/** Issue 16's cost-per-request figures: the GET against the raw GetItem (latency at the first load, throughput at the second). Reported, not enforced. */
function latencyHeadlines({ settings, comparisons }: LatencyReport): string[] {
  const [latency, load] = comparisons;
  if (!latency || !load) return [];
  const { api, raw } = latency;
  const ratio = Math.max(api.p50 / raw.p50, api.p99 / raw.p99);
  return [
    `${ratio <= LATENCY_TARGET ? 'ok' : 'above target (not enforced)'}: ${api.name} p50/p99 ${ms(api.p50)}/${ms(api.p99)} ms vs raw GetItem ` +
      `${ms(raw.p50)}/${ms(raw.p99)} ms at ${settings.connections} clients: ${times(api.p50 / raw.p50)} / ${times(api.p99 / raw.p99)} – target ≤ ${times(LATENCY_TARGET)}`,
    `throughput at ${settings.loadConnections} clients: ${load.api.name} ${load.api.requestsPerSecond.toFixed(0)} req/s (p50 ${ms(load.api.p50)} ms, p99 ${ms(load.api.p99)} ms) ` +
      `vs raw GetItem ${load.raw.requestsPerSecond.toFixed(0)} req/s: ${times(load.api.requestsPerSecond / load.raw.requestsPerSecond)}`,
  ];
}

function analyzerVerdict(report: RecipeSqlReport | Error): string {
  if (report instanceof Error) return `FAIL: the recipe SQL analyzer measurement failed: ${report.message}`;
  const firstAnalysis =
    report.coldStarts.map((start) => start.importMs + start.firstAnalysisMs).sort((a, b) => a - b)[
      Math.floor(report.coldStarts.length / 2)
    ] ?? Number.NaN;
  return (
    `ok: recipe SQL analyzer p50 ${report.analyzer.p50.toFixed(2)} ms, p99 ${report.analyzer.p99.toFixed(2)} ms warm ` +
    `(${(report.analyzer.p50 / report.bareParser.p50).toFixed(2)}× json_serialize_sql alone at p50); cold import + first analysis ${firstAnalysis.toFixed(0)} ms (median)`
  );
}

function recipeRunVerdict(report: RecipeRunReport | Error): string {
  if (report instanceof Error) return `FAIL: the recipe run measurement failed: ${report.message}`;
  const ratio = recipeRunRatio(report);
  const sample = median(report.sampleMs);
  const full = `${ratio >= RECIPE_RUN_TARGET ? 'ok' : 'below target (not enforced)'}: recipe run pipeline throughput ${ratio.toFixed(2)} of the bare script's (medians) – target ≥ ${RECIPE_RUN_TARGET.toFixed(2)}`;
  const onSamples = `${sample < SAMPLE_RUN_TARGET_MS ? 'ok' : 'above target (not enforced)'}: a run on samples COMPLETED in ${sample.toFixed(0)} ms end to end (median) – target < ${SAMPLE_RUN_TARGET_MS} ms`;
  return `${full}\n- ${onSamples}`;
}

function multipartExportVerdict(report: MultipartExportReport | Error): string {
  if (report instanceof Error) return `FAIL: the multi-part export measurement failed: ${report.message}`;
  const ratio = multipartExportRatio(report);
  return `${ratio >= MULTIPART_EXPORT_TARGET ? 'ok' : 'below target (not enforced)'}: multi-part export throughput ${ratio.toFixed(2)} of the raw SDK's (medians) – target ≥ ${MULTIPART_EXPORT_TARGET.toFixed(2)}`;
}

function costVerdict(cost: Awaited<ReturnType<typeof measureCost>> | Error): string {
  if (cost instanceof Error) return `FAIL: the cost measurement failed: ${cost.message}`;
  const missing = cost.rows.filter((row) => row.misses.length > 0).map((row) => row.operationId);
  return missing.length === 0
    ? `ok: every route meets its cost goals (${cost.rows.length} measured)`
    : `goals missed (reported, not enforced) by ${missing.length} of ${cost.rows.length}: ${missing.join(', ')}`;
}

function importVerdict(imported: ImportReport | Error): string {
  if (imported instanceof Error) return `FAIL: the import measurement failed: ${imported.message}`;
  const { pipelineVsBare, bareVsDuckDb } = importRatios(imported);
  const numbers =
    `${pipelineVsBare.median.toFixed(2)} of the bare script's (medians; best runs ${pipelineVsBare.best.toFixed(2)}, per round ${pipelineVsBare.perRound.toFixed(2)}); ` +
    `bare script ${bareVsDuckDb.median.toFixed(2)} of DuckDB alone`;
  return pipelineVsBare.median >= PIPELINE_TARGET
    ? `ok: import pipeline throughput ${numbers} – target ≥ ${PIPELINE_TARGET.toFixed(2)} met`
    : `below target (not enforced): import pipeline throughput ${numbers} – target ≥ ${PIPELINE_TARGET.toFixed(2)}`;
}

async function main(): Promise<number> {
  const sections = selectedSections(process.argv.slice(2));
  const settings = benchSettings(process.argv.includes(SMOKE));
  runTwinsInProcess(settings.twinsInProcess);
  // Taken before the bench loads the machine itself: other work on the 2 cores skews the numbers (the ratios less so).
  const busyBefore = await machineBusy();
  const bundles = sections.has('bundles') ? await measureBundles(settings.bundledHandlers) : undefined;
  const cost = sections.has('cost') ? await attempt(() => measureCost(settings.cost)) : undefined;
  const jobCosts = sections.has('cost-jobs')
    ? await attempt(() => jobCostSection(settings.costJobs.rows, settings.costJobs.jsonFile))
    : undefined;
  const latency = sections.has('latency') ? await measureLatency(settings.latency) : undefined;
  // On a twin of its own, started after the other phases' twin is gone.
  const mixed = sections.has('latency') ? await measureMixedLoad(settings.mixedLoad) : undefined;
  const imported = sections.has('import') ? await attempt(() => measureImportThroughput(settings.import)) : undefined;
  const quality = sections.has('quality') ? await attempt(() => measureQuality(settings.quality)) : undefined;
  const analyzer = sections.has('recipe-sql') ? await attempt(() => measureRecipeSql(settings.recipeSql)) : undefined;
  const lineage = sections.has('lineage') ? await attempt(() => measureLineage(settings.recipeSql.rounds)) : undefined;
  const recipeRun = sections.has('recipe-run') ? await attempt(() => measureRecipeRun(settings.recipeRun)) : undefined;
  const multipartExport = sections.has('multipart-export')
    ? await attempt(() => measureMultipartExport(settings.multipartExport))
    : undefined;
  const scale = sections.has('scale') ? await attempt(() => benchScale(positiveSetting)) : undefined;
  const cliStart = sections.has('cli-start') ? await attempt(() => measureCliStart(settings.cliStartRuns)) : undefined;

  const oversized = (bundles ?? [])
    .filter((bundle) => bundle.bytes > bundleBudget(bundle.handler))
    .map((bundle) => bundle.handler);
  const forbidden = (bundles ?? []).filter((bundle) => bundle.forbidden.length > 0).map((bundle) => bundle.handler);
  const failedPhases = (latency?.comparisons ?? [])
    .flatMap(({ api, raw }) => [api, raw])
    .filter((phase) => phase.failed > 0)
    .map((phase) => `${phase.name} (${phase.connections} clients)`)
    .concat(mixed && mixed.all.failed > 0 ? [`mixed load (${mixed.settings.connections} clients)`] : []);
  const measurementsFailed = [imported, quality, cost, jobCosts, analyzer, recipeRun, multipartExport, cliStart].filter(
    (section) => section instanceof Error,
  ).length;
  const scaleFailed = scale instanceof Error ? 1 : (scale?.failed ?? 0);
  const verdict = [
    ...(bundles
      ? [
          oversized.length > 0
            ? `FAIL: over budget as deployed: ${oversized.join(', ')}`
            : `ok: every handler within its budget as deployed`,
          forbidden.length > 0
            ? `FAIL: forbidden packages in: ${forbidden.join(', ')}`
            : 'ok: no forbidden package in any bundle',
        ]
      : []),
    ...(latency
      ? [
          failedPhases.length > 0
            ? `FAIL: failed requests in: ${failedPhases.join(', ')}`
            : 'ok: no failed request in any latency phase',
          ...latencyHeadlines(latency),
        ]
      : []),
    ...(mixed
      ? [
          `${mixed.requestsPerSecond >= MIXED_LOAD_TARGET_RPS ? 'ok' : 'below target (not enforced)'}: mixed load ` +
            `${mixed.requestsPerSecond.toFixed(0)} req/s at ${mixed.settings.connections} clients, p50 ${mixed.all.p50.toFixed(0)} ms ` +
            `(load average ${mixed.loadAverage.toFixed(2)}) – target ≥ ${MIXED_LOAD_TARGET_RPS}`,
        ]
      : []),
    ...(cost ? [costVerdict(cost)] : []),
    ...(imported ? [importVerdict(imported)] : []),
    ...(quality ? [qualityVerdict(quality)] : []),
    ...(analyzer ? [analyzerVerdict(analyzer)] : []),
    ...(recipeRun ? [recipeRunVerdict(recipeRun)] : []),
    ...(multipartExport ? [multipartExportVerdict(multipartExport)] : []),
    ...(scale instanceof Error ? [`FAIL: the 10M-row measurement failed: ${scale.message}`] : (scale?.verdicts ?? [])),
  ];

  const report = [
    '# Data Preparation Service – bench',
    '',
    `${new Date().toISOString()} · Node ${process.version} · ${cpus().length} cores · CPU busy in the second before the run: ${(busyBefore * 100).toFixed(0)}%` +
      (busyBefore > 0.1 ? ' (**other work on the machine: expect noisy absolute numbers**)' : ''),
    '',
    ...(bundles ? [...bundleSection(bundles), ''] : []),
    ...sectionLines('## What a request costs', cost, (measured) => measured.lines),
    ...sectionLines('## What a job costs', jobCosts, (lines) => lines),
    ...(latency ? [...latencySection(latency), ''] : []),
    ...(mixed ? [...mixedLoadSection(mixed), ''] : []),
    ...sectionLines('## Import throughput', imported, importSection),
    ...sectionLines('## Data-quality rules', quality, qualitySection),
    ...sectionLines('## Recipe SQL analyzer', analyzer, recipeSqlSection),
    ...sectionLines('## Column lineage', lineage, lineageSection),
    ...sectionLines('## Recipe run', recipeRun, recipeRunSection),
    ...sectionLines('## Multi-part export', multipartExport, multipartExportSection),
    ...sectionLines('## dps start', cliStart, cliStartSection),
    ...(scale instanceof Error
      ? ['## 10M rows', '', `The measurement failed: ${scale.message}`, '']
      : (scale?.lines ?? [])),
    '## Verdict',
    '',
    ...verdict.map((line) => `- ${line}`),
  ];
  console.log(report.join('\n'));
  const failed = [oversized, forbidden, failedPhases].reduce((sum, list) => sum + list.length, measurementsFailed);
  return failed + scaleFailed > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
