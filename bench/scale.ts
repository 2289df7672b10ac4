/**
 * Throughput past the fixed costs (issue 28, item 4): `npm run bench -- scale` runs the import,
 * recipe-run and multi-part export benches at 10M rows, each against its bare script in the
 * same run, with the twin's job workers capped at the memory of a 3 GB Lambda.
 *
 * - The cap: the twin process gets AWS_LAMBDA_FUNCTION_MEMORY_SIZE, which Lambda sets from the
 *   function's MemorySize, so the engines size themselves as on such a Lambda (shared/engine/limits.ts):
 *   DuckDB's memory_limit a share of it, a spill folder (temp_directory) in the job's scratch,
 *   and a recipe run's engine process killed past the function's memory less the worker's own share.
 * - The CSV (about 1 GB at 10M rows) is generated under os.tmpdir() by the bench and deleted after.
 * - One measured run of each side unless BENCH_SCALE_RUNS says more: at this size a run takes
 *   long enough that the fixed costs no longer hide anything, and the 2-core machine is shared.
 */
import { part, type Failed } from './scale-part';
import { loadavg } from 'node:os';
import { rm } from 'node:fs/promises';
import { recipeRunLimits } from '../shared/datasets/recipe-node-build';
import { engineBudget, type EngineBudget } from '../shared/engine/limits';
import { ensureCsv } from './bench-csv';
import { measureImportThroughput, type ImportReport } from './import-throughput';
import { measureMultipartExport, type MultipartExportReport } from './multipart-export';
import { measureRecipeRun, type RecipeRunReport } from './recipe-run';
import { now } from './import-protocol';
import { measureFargatePaths, type FargateReport } from './scale-fargate';

export interface ScaleSettings {
  /** Rows of the large table (the imported CSV, the recipe's left side, the export). */
  readonly rows: number;
  /** Rows of the table the recipe joins it with. */
  readonly smallRows: number;
  /** Parts of the multi-part export. */
  readonly parts: number;
  /** Measured runs of each side (after no warm-up: at this size the first run pays nothing the others do not). */
  readonly runs: number;
  /** The memory of the twin's job workers, as a Lambda's MemorySize (MB). */
  readonly workerMemoryMb: number;
  /** The memory of the local Fargate tasks (MB): with it, the import and the recipe run again on the Fargate path (scale-fargate.ts). */
  readonly taskMemoryMb?: number;
}

export interface ScaleReport {
  readonly settings: ScaleSettings;
  readonly startedAt: string;
  /** os.loadavg() before and after: the machine is shared, so the figures carry its load. */
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly csvBytes: number;
  readonly csvGenerationMs: number;
  readonly imported: ImportReport | Failed;
  readonly recipe: RecipeRunReport | Failed;
  readonly exported: MultipartExportReport | Failed;
  /** The import and the recipe run on the Fargate path, when the settings name a task memory. */
  readonly fargate?: FargateReport;
  /** What the cap gives the engines: the import worker's DuckDB, and a recipe run's engine process and its DuckDB. */
  readonly engines: {
    readonly worker: EngineBudget;
    readonly recipeProcessCapMb: number;
    readonly recipeRun: EngineBudget;
  };
}

/** The variable Lambda sets from the function's MemorySize; the engines size themselves from it. */
const MEMORY_VARIABLE = 'AWS_LAMBDA_FUNCTION_MEMORY_SIZE';

/** Runs the three measurements at `settings.rows` with the workers' memory capped; removes the CSV after. */
export async function measureScale(settings: ScaleSettings): Promise<ScaleReport> {
  const startedAt = new Date().toISOString();
  const loadBefore = loadavg();
  const generationStart = now();
  const csv = await ensureCsv(settings.rows);
  const csvGenerationMs = now() - generationStart;
  const previous = process.env[MEMORY_VARIABLE];
  // Inherited by the twin's process (startChild copies the environment) and by the bench's own DuckDB conversion.
  process.env[MEMORY_VARIABLE] = String(settings.workerMemoryMb);
  try {
    const { rows, smallRows, parts, runs } = settings;
    const recipeProcessCapMb = recipeRunLimits().memoryMb;
    const engines = {
      worker: engineBudget('worker'),
      recipeProcessCapMb,
      recipeRun: engineBudget('recipe-run', recipeProcessCapMb),
    };
    const imported = await part(() => measureImportThroughput({ rows, runs, warmupRounds: 0 }));
    const recipe = await part(() => measureRecipeRun({ rows, smallRows, runs, warmupRounds: 0, eagerReads: false }));
    const exported = await part(() => measureMultipartExport({ rows, parts, runs, warmupRounds: 0 }));
    const { taskMemoryMb } = settings;
    const fargate =
      taskMemoryMb === undefined ? undefined : await measureFargatePaths({ rows, smallRows, runs, taskMemoryMb });
    return {
      settings,
      startedAt,
      loadBefore,
      loadAfter: loadavg(),
      csvBytes: csv.bytes,
      csvGenerationMs,
      imported,
      recipe,
      exported,
      ...(fargate === undefined ? {} : { fargate }),
      engines,
    };
  } finally {
    if (previous === undefined) delete process.env[MEMORY_VARIABLE];
    else process.env[MEMORY_VARIABLE] = previous;
    await rm(csv.path, { force: true });
  }
}
