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
}

/** No asynchronous job exists yet; imports bring the first worker. */
export const workers: readonly WorkerSpec[] = [];

export function workerPlaceholder(worker: Pick<WorkerSpec, 'name'>): string {
  return `${worker.name.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase())}FunctionArn`;
}
