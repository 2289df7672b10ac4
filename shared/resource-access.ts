/**
 * What a function may touch in AWS, declared beside its code (a route of the route table, a
 * job's worker). CDK grants exactly this (least privilege), so a function that needs more
 * must say so here.
 */
export interface ResourceAccess {
  readonly table?: 'read' | 'write';
  /** Envelope encryption of secrets: generate data keys (encrypt) and/or decrypt them. */
  readonly dataKey?: readonly ('encrypt' | 'decrypt')[];
  /** Access tokens: sign (issue) or read the public key (verify). */
  readonly signingKey?: 'sign' | 'verify';
  /**
   * The service's data bucket (data versions, samples, analyses). `delete` lists and deletes
   * objects without reading or writing any (the retention sweep).
   */
  readonly dataBucket?: 'read' | 'write' | 'delete';
  /** Only the data bucket's objects under this key prefix (the apps' files: `apps/`); every object when omitted. */
  readonly dataBucketPrefix?: string;
  /**
   * The jobs the function starts (their declarations, shared/jobs/define-job.ts): it may
   * start their state machines and learns their ARNs, nothing else.
   */
  readonly startsJobs?: readonly StartableJob[];
  /**
   * The jobs the function cancels (shared/jobs/cancel.ts): it may stop their executions
   * (states:StopExecution) and learns their machines' ARNs, nothing else.
   */
  readonly stopsJobs?: readonly StartableJob[];
  /** The AI assistant's model: bedrock:InvokeModel on the stage's model (ASSISTANT_BEDROCK_MODEL_ID) only. */
  readonly assistantModel?: true;
  /**
   * trino-sql runs (shared/engine/athena/): the stage's per-tenant Athena workgroups
   * (ATHENA_WORKGROUP_PREFIX) and Glue databases (ATHENA_DATABASE_PREFIX) and their tables, by
   * prefix; nothing where the stage has no Athena. `cleanup`: only listing and dropping tables
   * of those databases (a cancelled run's, shared/engine/athena/cancelled-run.ts), no Athena.
   */
  readonly athena?: true | 'cleanup';
  /**
   * The stage's EventBridge Scheduler schedules (shared/schedules/scheduler.ts): create, update,
   * delete and read schedules of the stage's schedule group only, and hand them the scheduler's
   * role (iam:PassRole on that role alone). `reconcile` also lists schedules (ListSchedules
   * takes no resource: `*`), which only the sweep's reconciliation does.
   */
  readonly schedules?: true | 'reconcile';
}

/** The part of a job declaration that access rules need: its name, which names its state machine. */
export interface StartableJob {
  readonly name: string;
}
