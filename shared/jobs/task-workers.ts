/** What a worker module exports: the Lambda handler jobWorker makes. */
export type WorkerHandler = (input: unknown, context: { awsRequestId: string }) => Promise<unknown>;

/**
 * The workers a Fargate task can run, by worker name, each loaded only when its task starts
 * (functions/jobs/task-workers.ts holds the table): the one bundle of functions/jobs/fargate-task.ts
 * carries them all, so every engine task definition runs the same code.
 */
export type TaskWorkers = Readonly<Record<string, () => Promise<{ readonly handler: WorkerHandler }>>>;

/**
 * Fails unless each of `workers` (those that declare `fargate`) has its module in `table`: CDK
 * and the twin check it before they define a task, so a missing module fails the deployment, not a job.
 */
export function assertTaskWorkers(table: TaskWorkers, workers: readonly { readonly name: string }[]): void {
  const missing = workers.filter((worker) => !Object.hasOwn(table, worker.name)).map((worker) => worker.name);
  if (missing.length > 0)
    throw new Error(
      `workers ${missing.join(', ')} declare fargate but are not in functions/jobs/task-workers.ts: add their modules there`,
    );
}
