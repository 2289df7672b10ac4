import type { ResourceAccess } from '../shared/http/route';

/**
 * The job-step functions that state machines (statemachines/*.asl.json) call. An ASL file
 * names a worker's ARN as the placeholder `${<Name>FunctionArn}` (see workerPlaceholder);
 * CDK substitutes the deployed function's ARN, the local twin its own handler.
 */
export interface WorkerSpec {
  /** kebab-case; the placeholder is its PascalCase form plus FunctionArn. */
  readonly name: string;
  /** Module under functions/ that exports `handler`. */
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly access: ResourceAccess;
  /**
   * Runs DuckDB (@duckdb/node-api): on Lambda the engine and its native binding come from a
   * layer instead of the bundle, and the function gets scratch space for the data it loads.
   */
  readonly engine?: true;
}

/**
 * Engine workers get Lambda's largest sensible size: DuckDB's speed scales with memory and
 * the vCPUs that come with it. The failure recorder only writes one item.
 */
export const workers: readonly WorkerSpec[] = [
  {
    name: 'import-data-version',
    handler: 'jobs/import-data-version',
    timeoutSeconds: 900,
    memoryMb: 4096,
    access: { table: 'write', dataKey: ['decrypt'], dataBucket: 'write' },
    engine: true,
  },
  {
    name: 'analyse-schema',
    handler: 'jobs/analyse-schema',
    timeoutSeconds: 900,
    memoryMb: 4096,
    access: { table: 'write', dataBucket: 'write' },
    engine: true,
  },
  { name: 'record-job-failure', handler: 'jobs/record-job-failure', timeoutSeconds: 60, memoryMb: 256, access: { table: 'write' } },
];

export function workerPlaceholder(worker: Pick<WorkerSpec, 'name'>): string {
  return `${worker.name.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase())}FunctionArn`;
}
