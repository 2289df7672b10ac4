/**
 * The sizes `npm run bench` measures each section at, and the tiny ones of `--smoke`: the same
 * code at a size that runs in seconds, which the test suite runs (test/integration/bench/smoke.test.ts)
 * so that a section cannot break unseen (issue 38). A smoke run's numbers mean nothing; that it
 * completes and prints its tables does. The BENCH_* variables (bench/run.ts) override either size.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CostSettings } from './cost-report';
import type { ImportSettings } from './import-throughput';
import type { LatencySettings } from './latency';
import type { MixedLoadSettings } from './latency-mixed';
import type { MultipartExportSettings } from './multipart-export';
import type { QualitySettings } from './quality';
import type { RecipeRunSettings } from './recipe-run';

/** What each section is measured at. */
export interface BenchSettings {
  /** Whether the sections' twins run in this process (bench/twin-fork.ts: a smoke run's) or each in its own. */
  readonly twinsInProcess: boolean;
  /** How many of the route handlers are bundled (all of them when undefined). */
  readonly bundledHandlers: number | undefined;
  readonly cost: CostSettings;
  readonly costJobs: { readonly rows: number; readonly jsonFile: string };
  readonly latency: LatencySettings;
  readonly mixedLoad: MixedLoadSettings;
  readonly import: ImportSettings;
  readonly recipeSql: { readonly rounds: number; readonly coldStarts: number };
  readonly recipeRun: RecipeRunSettings;
  readonly multipartExport: MultipartExportSettings;
  /** Eight data-quality rules on an import, beside the same import without them (bench/quality.ts). */
  readonly quality: QualitySettings;
  /** Timed starts of `dps --help` (bench/cli-start.ts). */
  readonly cliStartRuns: number;
}

/** A positive integer from the environment variable `name`, else `fallback`. */
export function positiveSetting(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** A smoke run's files go to a temporary folder: the measured results in bench/results stay as they were. */
const smokeFile = (name: string) => join(tmpdir(), `dps-bench-smoke-${process.pid}-${name}`);

/** The settings of a real run (`smoke` false) or of a smoke run. */
export function benchSettings(smoke: boolean): BenchSettings {
  const size = <T>(real: T, tiny: T): T => (smoke ? tiny : real);
  return {
    twinsInProcess: smoke,
    // An engine route's handler among them (measureBundles).
    bundledHandlers: size(undefined, 3),
    cost: {
      readRuns: positiveSetting('BENCH_COST_RUNS', size(10, 1)),
      writeRuns: positiveSetting('BENCH_COST_WRITE_RUNS', size(3, 1)),
      coldRuns: Number(process.env.BENCH_COST_COLD_RUNS ?? size(3, 0)),
      jsonFile: size('bench/results/cost.json', smokeFile('cost.json')),
    },
    costJobs: {
      rows: positiveSetting('BENCH_COST_JOB_ROWS', size(200_000, 200)),
      jsonFile: size('bench/results/cost-jobs.json', smokeFile('cost-jobs.json')),
    },
    latency: size(
      { connections: 10, loadConnections: 50, seconds: 5, warmupSeconds: 1 },
      { connections: 2, loadConnections: 4, seconds: 0.2, warmupSeconds: 0.05 },
    ),
    mixedLoad: size(
      { connections: 50, seconds: 10, warmupSeconds: 2 },
      { connections: 4, seconds: 0.3, warmupSeconds: 0.05, requestsPerRoute: 2 },
    ),
    import: {
      rows: positiveSetting('BENCH_IMPORT_ROWS', size(1_000_000, 500)),
      runs: positiveSetting('BENCH_IMPORT_RUNS', size(3, 1)),
      warmupRounds: size(1, 0),
    },
    recipeSql: {
      rounds: positiveSetting('BENCH_RECIPE_SQL_ROUNDS', size(20, 1)),
      coldStarts: positiveSetting('BENCH_RECIPE_SQL_COLD_STARTS', size(5, 1)),
    },
    recipeRun: {
      rows: positiveSetting('BENCH_RECIPE_RUN_ROWS', size(1_000_000, 500)),
      smallRows: size(10_000, 100),
      runs: positiveSetting('BENCH_RECIPE_RUN_RUNS', size(5, 1)),
      warmupRounds: size(1, 0),
      eagerReads: size(true, false),
    },
    multipartExport: {
      rows: positiveSetting('BENCH_EXPORT_ROWS', size(1_000_000, 500)),
      // One part: every part but the last holds at least 5 MiB, more than a smoke run exports.
      parts: positiveSetting('BENCH_EXPORT_PARTS', size(5, 1)),
      runs: positiveSetting('BENCH_EXPORT_RUNS', size(3, 1)),
      warmupRounds: size(1, 0),
    },
    quality: {
      rows: positiveSetting('BENCH_QUALITY_ROWS', size(1_000_000, 500)),
      runs: positiveSetting('BENCH_QUALITY_RUNS', size(5, 1)),
      warmupRounds: size(1, 0),
    },
    cliStartRuns: size(10, 1),
  };
}
