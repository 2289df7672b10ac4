/**
 * The recipe SQL analyzer's cost, beside DuckDB's parser alone, in the same run:
 * - warm: analyseRecipeSql over the recipe corpus (test/unit/engine/recipe-sql-corpus.ts) in
 *   this process, after a discarded warm-up round; beside it the bare `SELECT
 *   json_serialize_sql(?)` on one open connection of a sandboxed engine, same inputs, same
 *   rounds, interleaved recipe by recipe so drift affects both alike;
 * - cold: a new Node process per start, as a Lambda init then first invocation: the analyzer
 *   bundled as an engine route is (esbuild, DuckDB external, taken from node_modules as the
 *   layer provides it), imported, then one analysis (which creates the sandboxed engine).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as z from 'zod';
import { bundleFunction, routeExternalModules } from '../infra/bundling';
import { PROJECT_ROOT } from '../infra/stacks/service-function';
import { createSandboxedDuckDb } from '../shared/engine/duckdb';
import { analyseRecipeSql } from '../shared/engine/recipe-sql';
import { RECIPE_SQL_CORPUS } from '../test/unit/engine/recipe-sql-corpus';

export interface Distribution {
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly samples: number;
}

export interface ColdStart {
  /** Node's own start, until the driver's first line runs. */
  readonly nodeStartMs: number;
  /** Importing the bundled analyzer: the module and DuckDB's native binding. */
  readonly importMs: number;
  /** The first analysis: the sandboxed engine created, the code parsed and walked. */
  readonly firstAnalysisMs: number;
  /** Spawn to exit, seen by this process. */
  readonly wallMs: number;
}

export interface RecipeSqlReport {
  readonly recipes: number;
  readonly rounds: number;
  readonly analyzer: Distribution;
  readonly bareParser: Distribution;
  readonly coldStarts: readonly ColdStart[];
  readonly bundleBytes: number;
}

const percentile = (sorted: readonly number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;

function distribution(samples: readonly number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: samples.reduce((sum, value) => sum + value, 0) / samples.length,
    samples: samples.length,
  };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function measureWarm(rounds: number): Promise<Pick<RecipeSqlReport, 'analyzer' | 'bareParser'>> {
  const engine = await createSandboxedDuckDb();
  const connection = await engine.connect();
  try {
    const bare = async (code: string) =>
      (await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [code])).getRows()[0]?.[0];
    const analyzer: number[] = [];
    const bareParser: number[] = [];
    for (let round = 0; round <= rounds; round++) {
      for (const recipe of RECIPE_SQL_CORPUS) {
        const analysed = await timed(() => analyseRecipeSql(recipe.code, recipe.aliases));
        const parsed = await timed(() => bare(recipe.code));
        // Round 0 warms the JIT and both engines up, and is discarded.
        if (round > 0) {
          analyzer.push(analysed);
          bareParser.push(parsed);
        }
      }
    }
    return { analyzer: distribution(analyzer), bareParser: distribution(bareParser) };
  } finally {
    connection.closeSync();
    engine.closeSync();
  }
}

/** Run by a fresh `node` per cold start: times its own import of the analyzer and first analysis. */
const DRIVER = `
const entered = performance.now();
const { analyseRecipeSql } = await import('./analyzer.mjs');
const imported = performance.now();
await analyseRecipeSql('SELECT * FROM CurrentTable WHERE amount > 0', ['CurrentTable']);
const analysed = performance.now();
process.stdout.write(JSON.stringify({ nodeStartMs: entered, importMs: imported - entered, firstAnalysisMs: analysed - imported }));
`;

const DriverOutput = z.object({ nodeStartMs: z.number(), importMs: z.number(), firstAnalysisMs: z.number() });

async function measureCold(starts: number): Promise<Pick<RecipeSqlReport, 'coldStarts' | 'bundleBytes'>> {
  // Under the project, so that the bundle's external @duckdb/node-api resolves from node_modules.
  const dir = await mkdtemp(join(PROJECT_ROOT, 'node_modules', '.cache', 'bench-recipe-sql-'));
  try {
    const bundle = await bundleFunction(join(PROJECT_ROOT, 'shared/engine/recipe-sql.ts'), routeExternalModules(true));
    await writeFile(join(dir, 'analyzer.mjs'), bundle.code);
    await writeFile(join(dir, 'driver.mjs'), DRIVER);
    const coldStarts: ColdStart[] = [];
    for (let start = 0; start < starts; start++) {
      const begun = process.hrtime.bigint();
      const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'driver.mjs')], { cwd: dir });
      const wallMs = Number(process.hrtime.bigint() - begun) / 1e6;
      coldStarts.push({ ...DriverOutput.parse(JSON.parse(stdout)), wallMs });
    }
    return { coldStarts, bundleBytes: bundle.bytes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function measureRecipeSql(settings: { rounds: number; coldStarts: number }): Promise<RecipeSqlReport> {
  const cold = await measureCold(settings.coldStarts);
  const warm = await measureWarm(settings.rounds);
  return { recipes: RECIPE_SQL_CORPUS.length, rounds: settings.rounds, ...warm, ...cold };
}

const ms = (value: number): string => value.toFixed(2);
const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

export function recipeSqlSection(report: RecipeSqlReport): string[] {
  const { analyzer, bareParser, coldStarts } = report;
  const phase = (name: string, pick: (start: ColdStart) => number) => {
    const values = coldStarts.map(pick);
    return `| ${name} | ${ms(median(values))} | ${ms(Math.min(...values))} | ${ms(Math.max(...values))} |`;
  };
  return [
    '## Recipe SQL analyzer',
    '',
    `Warm: analyseRecipeSql over the ${report.recipes}-recipe corpus (test/unit/engine/recipe-sql-corpus.ts), ${report.rounds} rounds after a discarded one, in the bench process;`,
    "beside it the bare `SELECT json_serialize_sql(?)` on one open connection of a sandboxed DuckDB, interleaved recipe by recipe. The analyzer's",
    'share on top of the parser: a connection per call, JSON.parse of the tree, the walk and the checks.',
    '',
    '| per recipe | p50 ms | p99 ms | mean ms | samples |',
    '|---|--:|--:|--:|--:|',
    `| analyseRecipeSql | ${ms(analyzer.p50)} | ${ms(analyzer.p99)} | ${ms(analyzer.mean)} | ${analyzer.samples} |`,
    `| json_serialize_sql alone | ${ms(bareParser.p50)} | ${ms(bareParser.p99)} | ${ms(bareParser.mean)} | ${bareParser.samples} |`,
    `| ratio | ${(analyzer.p50 / bareParser.p50).toFixed(2)}× | ${(analyzer.p99 / bareParser.p99).toFixed(2)}× | ${(analyzer.mean / bareParser.mean).toFixed(2)}× | |`,
    '',
    `Cold: ${coldStarts.length} new Node processes, each importing the analyzer bundled as an engine route (${(report.bundleBytes / 1024).toFixed(1)} KB, DuckDB external as the layer`,
    "provides it) and analysing one recipe: what a Lambda init and first invocation of an engine route add. This machine, not Lambda's arm64 at 1769 MB.",
    '',
    '| cold start | median ms | min ms | max ms |',
    '|---|--:|--:|--:|',
    phase('node start, to the first line', (start) => start.nodeStartMs),
    phase('import (module + DuckDB binding)', (start) => start.importMs),
    phase('first analysis (engine created, parse, walk)', (start) => start.firstAnalysisMs),
    phase('process, spawn to exit', (start) => start.wallMs),
  ];
}
