import os from 'node:os';

/**
 * What every DuckDB the service opens may use, by the kind of work it does, set when the
 * engine is created and before any SQL reaches it (docs/engine-limits.md). The figures
 * follow the memory of the function the engine runs in, as Lambda gives CPU with memory:
 * the engine's memory limit is a share of it, its threads the vCPUs it buys (one per
 * 1,769 MB), its spill space a share of the function's scratch storage.
 */

/** The kinds of engine the service opens. */
export type EngineKind =
  /** The recipe SQL analyzer: binds user SQL over empty tables, in a process of its own. */
  | 'analyser'
  /** A recipe run: user SQL over a node's inputs, in a process of its own. */
  | 'recipe-run'
  /** Imports, schema analyses, exports and connector loads: the service's own SQL over user data. */
  | 'worker';

/** The settings DuckDB is created with. */
export interface EngineBudget {
  /** DuckDB's memory_limit: what its buffer manager may hold before it spills or fails. */
  readonly memoryLimitMb: number;
  readonly threads: number;
  /** DuckDB's max_temp_directory_size: what it may spill; 0 when it has no spill folder. */
  readonly maxTempDirectorySizeMb: number;
}

/** Memory of the function an engine worker runs in when Lambda does not say (the twin): the job declarations' size. */
export const DEFAULT_WORKER_MEMORY_MB = 4096;

/** Memory of an API function that runs the analyzer (infra: ENGINE_ROUTE_MEMORY_MB). */
export const ANALYSER_FUNCTION_MEMORY_MB = 1769;

/** Lambda gives one vCPU per 1,769 MB of memory, up to six. */
const MB_PER_VCPU = 1769;
const MAX_VCPUS = 6;

/** Share of the function's memory DuckDB's buffer manager may hold; the rest is Node's, the OS's and DuckDB's own. */
const ENGINE_MEMORY_SHARE = 0.6;

/**
 * The analyzer binds and reads no row: 256 MB is far more than any real recipe needs, and
 * the process it runs in is killed at ANALYSER_PROCESS (engine-process.ts) whatever DuckDB
 * allocates outside its buffer manager (constant folding of `repeat('x', 2e9)` does).
 */
const ANALYSER_MEMORY_LIMIT_MB = 256;

/**
 * What an engine may spill, as a share of the worker's scratch storage (10 GB on Lambda,
 * ENGINE_EPHEMERAL_STORAGE): the rest holds the job's inputs and outputs.
 */
const SPILL_LIMIT_MB = 4096;

/**
 * The memory and the storage of the ECS Fargate task this process runs in, set by its task
 * definition (infra/stacks/engine-tasks.ts, the twin's infra/local/ecs.ts): on Fargate the
 * engine follows them as it follows the function's memory and /tmp on Lambda.
 */
export const TASK_MEMORY_VARIABLE = 'TASK_MEMORY_MB';
export const TASK_STORAGE_VARIABLE = 'TASK_STORAGE_MB';

/** A positive whole number of MB from the environment, if set. */
function statedMb(variable: string): number | undefined {
  const stated = Number(process.env[variable]);
  return Number.isInteger(stated) && stated > 0 ? stated : undefined;
}

/** The memory of the function (or Fargate task) this process runs as: Lambda's own figure, the task's, else `fallbackMb`. */
export function functionMemoryMb(fallbackMb: number = DEFAULT_WORKER_MEMORY_MB): number {
  return statedMb('AWS_LAMBDA_FUNCTION_MEMORY_SIZE') ?? statedMb(TASK_MEMORY_VARIABLE) ?? fallbackMb;
}

/** Share of a task's storage an engine may spill: the rest holds the job's inputs and outputs, as on Lambda. */
const TASK_SPILL_SHARE = 0.4;

/** The vCPUs a function of `memoryMb` gets, never more than this machine has; a task's are all its vCPUs. */
export function vcpusOf(memoryMb: number): number {
  if (statedMb(TASK_MEMORY_VARIABLE) !== undefined) return os.availableParallelism();
  return Math.max(1, Math.min(MAX_VCPUS, Math.ceil(memoryMb / MB_PER_VCPU), os.availableParallelism()));
}

/** The budget of an engine of `kind` in a function of `memoryMb`. */
export function engineBudget(kind: EngineKind, memoryMb: number = functionMemoryMb()): EngineBudget {
  if (kind === 'analyser') return { memoryLimitMb: ANALYSER_MEMORY_LIMIT_MB, threads: 1, maxTempDirectorySizeMb: 0 };
  return {
    memoryLimitMb: Math.floor(memoryMb * ENGINE_MEMORY_SHARE),
    threads: vcpusOf(memoryMb),
    maxTempDirectorySizeMb: Math.max(
      SPILL_LIMIT_MB,
      Math.floor((statedMb(TASK_STORAGE_VARIABLE) ?? 0) * TASK_SPILL_SHARE),
    ),
  };
}

/** The budget as DuckDB's settings. An engine without a spill folder gets none: DuckDB's default is the working directory. */
export function budgetSettings(budget: EngineBudget, spillDirectory: string | undefined): Record<string, string> {
  return {
    memory_limit: `${budget.memoryLimitMb}MB`,
    threads: String(budget.threads),
    temp_directory: spillDirectory ?? '',
    max_temp_directory_size: spillDirectory ? `${budget.maxTempDirectorySizeMb}MB` : '0MB',
  };
}
