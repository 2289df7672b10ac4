import * as z from 'zod';

/**
 * The one shape of every asynchronous job's status (imports, schema analyses, and later
 * recipe runs, exports, transfers). A failed job never fails the HTTP call that reads it:
 * the failure is in `error`, with a code of the catalogue.
 */
/**
 * Where a job's worker runs, when a tenant admin chooses (docs/scale.md, section 1): `auto`
 * (the default) lets the state machine choose by the inputs' size; `lambda` and `fargate` force it.
 */
export const LaunchMode = z
  .enum(['auto', 'lambda', 'fargate'])
  .describe(
    'Where the job’s worker runs: `auto` (default) runs it on Fargate for inputs of FARGATE_ABOVE_BYTES or more, on Lambda otherwise; `lambda` or `fargate` force it (tenant admins only, 10-403 otherwise)',
  );
export type LaunchMode = z.infer<typeof LaunchMode>;

export const JOB_STATUSES = ['PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'ABORTED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JobError = z
  .object({
    code: z.string().describe('Catalogue code, e.g. 30-1118'),
    message: z.string(),
    cause: z.string().optional().describe('Technical root cause, when one is known'),
    extraDetails: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'Extra context, as a problem’s extraDetails (spec 7.1): the figures a limit names, the row a system refused',
      ),
  })
  .meta({ id: 'JobError' });
export type JobError = z.infer<typeof JobError>;

export const JobProgress = z
  .object({
    stage: z.string().describe('QUEUED, READING, LOADING, WRITING, CHECKING (data-quality rules), ANALYSING or DONE'),
    percent: z.number().min(0).max(100),
    bytes_read: z.int().min(0).optional(),
    /** Bytes written to a target, an object store or pre-signed URLs (exports): counted as data transfer. */
    bytes_written: z.int().min(0).optional().describe('Bytes the job wrote outside the service (exports)'),
    rows: z.int().min(0).optional(),
    cpu_seconds: z
      .number()
      .min(0)
      .optional()
      .describe('CPU time the job used, counted in the tenant’s quota usage (set when it completes)'),
  })
  .meta({ id: 'JobProgress' });
export type JobProgress = z.infer<typeof JobProgress>;

export const JobExecution = z
  .object({
    job_id: z.string(),
    status: z.enum(JOB_STATUSES),
    progress: JobProgress,
    started_date: z.iso.datetime().nullable().describe('When a worker first picked the job up'),
    ended_date: z.iso.datetime().nullable(),
    heartbeat_date: z.iso
      .datetime()
      .describe('Last sign of life of the job; a job silent for too long fails with 10-1047'),
    error: JobError.optional(),
    runs_on: z
      .enum(['lambda', 'fargate'])
      .optional()
      .describe(
        'Where the job’s worker ran: a Lambda function, or an ECS Fargate task for inputs past what a Lambda holds (set when a worker picks the job up)',
      ),
  })
  .meta({ id: 'JobExecution' });
export type JobExecution = z.infer<typeof JobExecution>;
