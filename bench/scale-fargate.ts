/**
 * The Fargate path at the scale section's size (issue 39, item 5): the import and recipe-run
 * benches again, with every job's state machine choosing its ECS task (FARGATE_ABOVE_BYTES=0),
 * so the twin's local ECS runs each worker's task entry point as a process of its own
 * (infra/local/ecs.ts), sized as a task of FARGATE_TASK_MEMORY_MB. Each bench runs its bare
 * script beside the pipeline in the same run, so the ratio is against the same machine's load.
 * What it cannot show is a real task's 30–60 s start, which the cost model adds (docs/scale.md).
 */
import { isFailed, part, type Failed } from './scale-part';
import { measureImportThroughput, median, type ImportReport } from './import-throughput';
import { importRatios } from './import-throughput-report';
import { measureRecipeRun, recipeRunRatio, type RecipeRunReport } from './recipe-run';

/** Issue 39's target: the Fargate path's throughput at least this share of the bare script's. */
export const FARGATE_TARGET = 0.8;

export interface FargateSettings {
  readonly rows: number;
  readonly smallRows: number;
  readonly runs: number;
  /** FARGATE_TASK_MEMORY_MB of the local tasks: their V8 heap bound and their engines' budget follow it. */
  readonly taskMemoryMb: number;
}

export interface FargateReport {
  readonly settings: FargateSettings;
  readonly imported: ImportReport | Failed;
  readonly recipe: RecipeRunReport | Failed;
}

/** Runs the import and the recipe run with every job on its Fargate task; the variables are put back after. */
export async function measureFargatePaths(settings: FargateSettings): Promise<FargateReport> {
  // Inherited by the twin's process (the benches start it with this environment), read by its local ECS.
  const variables = { FARGATE_ABOVE_BYTES: '0', FARGATE_TASK_MEMORY_MB: String(settings.taskMemoryMb) };
  const previous = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  try {
    const { rows, smallRows, runs } = settings;
    const imported = await part(() => measureImportThroughput({ rows, runs, warmupRounds: 0 }));
    const recipe = await part(() => measureRecipeRun({ rows, smallRows, runs, warmupRounds: 0, eagerReads: false }));
    return { settings, imported, recipe };
  } finally {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

interface FargateRatio {
  readonly name: string;
  readonly pipelineMs: number;
  readonly bareMs: number;
  readonly ratio: number;
}

function ratios(report: FargateReport): (FargateRatio | (Failed & { name: string }))[] {
  const { rows, smallRows } = report.settings;
  const count = (value: number) => value.toLocaleString('en-US');
  const importName = `import of a ${count(rows)}-row CSV, on a task`;
  const recipeName = `recipe run, ${count(rows)} × ${count(smallRows)} rows, on a task`;
  return [
    isFailed(report.imported)
      ? { name: importName, ...report.imported }
      : {
          name: importName,
          pipelineMs: median(report.imported.pipeline.map((run) => run.ms)),
          bareMs: median(report.imported.bare.map((run) => run.ms)),
          ratio: importRatios(report.imported).pipelineVsBare.median,
        },
    isFailed(report.recipe)
      ? { name: recipeName, ...report.recipe }
      : {
          name: recipeName,
          pipelineMs: median(report.recipe.pipelineMs),
          bareMs: median(report.recipe.bareMs),
          ratio: recipeRunRatio(report.recipe),
        },
  ];
}

/** The Fargate part of the scale section: its table, then one verdict per comparison. */
export function fargateSection(report: FargateReport): { lines: string[]; verdicts: string[] } {
  const rows = ratios(report);
  const lines = [
    `### The same on the Fargate path (issue 39)`,
    '',
    `Every job's machine chose its ECS task (FARGATE_ABOVE_BYTES=0); the twin's local ECS ran each worker's task entry point as a process of its own, sized as a ${report.settings.taskMemoryMb} MB task. The bare scripts ran beside it in the same run. A deployed task also waits 30–60 s for its start, which this machine cannot show (docs/scale.md's cost model adds it).`,
    '',
    '| comparison | Fargate path ms | bare script ms | path / bare | target |',
    '|---|--:|--:|--:|--:|',
    ...rows.map((row) =>
      'error' in row
        ? `| ${row.name} | failed: ${row.error} | | | ≥ ${FARGATE_TARGET} |`
        : `| ${row.name} | ${row.pipelineMs.toFixed(0)} | ${row.bareMs.toFixed(0)} | ${row.ratio.toFixed(2)} (${row.ratio >= FARGATE_TARGET ? 'met' : '**not met**'}) | ≥ ${FARGATE_TARGET} |`,
    ),
    '',
  ];
  const verdicts = rows.map((row) =>
    'error' in row
      ? `FAIL: ${row.name}: ${row.error}`
      : `${row.ratio >= FARGATE_TARGET ? 'ok' : 'below target (not enforced)'}: ${row.name}, path / bare script ${row.ratio.toFixed(2)} – target ≥ ${FARGATE_TARGET.toFixed(2)}`,
  );
  return { lines, verdicts };
}
