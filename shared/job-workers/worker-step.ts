import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { config } from '../config';
import { AppError } from '../errors/app-error';
import { logger } from '../log';
import type { JobPlace } from '../observability/metric-names';
import { recordJobEnd, recordJobStart, withMetricContext, type JobEndRecord } from '../observability/metrics';
import { openSpan } from '../observability/tracing';
import type { JobProgress } from '../model/job';
import { flushRunEvents, sendRunEvent } from '../openlineage/emit';
import { installGuardedDelivery } from '../openlineage/guarded-delivery';
import { describeJob } from './job-datasets';
import { SYNC_OUTCOME_KEY, type JobDeclaration } from '../jobs/define-job';
import { withCpuCounted } from '../jobs/cpu-usage';
import { JobFailure, jobFailureOf } from '../jobs/failure';
import type { JobInput, JobRef } from '../jobs/job-ref';
import { runsOn } from '../runs-on';
import { JobPulse } from '../jobs/pulse';
import { markAwaiting, markCompleted, markRunning } from '../jobs/status';
import type { JobOutcome, JobStep } from '../jobs/job-step';

/** The envelope every job's state machine passes to its worker; `params` is the job's own schema. */
const Envelope = z.object({
  job: z.looseObject({ tenant_id: z.string(), job_id: z.string(), kind: z.string() }),
  limits: z.object({ inactivity_seconds: z.int().positive() }),
  params: z.unknown(),
  /** The previous call's result and the outcome of the `.sync` state between the two (see JobStep.resumed). */
  result: z.object({ output: z.unknown() }).optional(),
  [SYNC_OUTCOME_KEY]: z.unknown().optional(),
});

function parseInput<P extends z.ZodType>(
  job: JobDeclaration<P>,
  input: unknown,
): JobInput<z.output<P>> & Pick<JobStep<unknown>, 'resumed'> {
  const envelope = Envelope.safeParse(input);
  const params = envelope.success ? job.params.safeParse(envelope.data.params) : undefined;
  if (!envelope.success || !params?.success || envelope.data.job.kind !== job.name) {
    const issues = envelope.success
      ? (params?.error?.issues ?? [{ message: `kind ${envelope.data.job.kind}` }])
      : envelope.error.issues;
    throw new AppError('10-500', {
      extraDetails: { cause: `invalid ${job.name} job input: ${issues.map((issue) => issue.message).join('; ')}` },
    });
  }
  // The job reference was checked for its identity only; its keys are read as the starter wrote them.
  const outcome = envelope.data[SYNC_OUTCOME_KEY];
  const resumed = outcome === undefined ? undefined : { handed: envelope.data.result?.output, outcome };
  return { job: (input as JobInput<unknown>).job, limits: envelope.data.limits, params: params.data, resumed };
}

/**
 * The Lambda handler of a job's work step. It parses the input against the job's parameter
 * schema, picks the job up (IN_PROGRESS, or again after a retry), keeps its heartbeat, gives
 * the work a scratch folder, and marks it COMPLETED with the work's fields when the work
 * returns. Its CPU time is counted in the tenant's usage and shown as the progress's
 * cpu_seconds, unless the work counts it itself. Any failure leaves as the JobFailure Step Functions retries or hands to the
 * failure recorder (shared/jobs/failure.ts); the heartbeat and the folder end either way.
 */
export function jobWorker<P extends z.ZodType, R>(
  job: JobDeclaration<P>,
  firstStage: JobProgress,
  work: (step: JobStep<z.output<P>>) => Promise<JobOutcome<R>>,
  options: {
    /** Removes what the work wrote outside the table when it, or its completion, failed. */
    readonly onFailure?: (step: JobStep<z.output<P>>) => Promise<void>;
    /** The work counts its CPU time itself (a recipe run, with its engine processes' time): not counted here. */
    readonly countsOwnCpu?: true;
    /**
     * What follows the job's COMPLETED write (an import's hand-over to the schedules waiting for
     * its table). Outside the work: it cannot make onFailure remove what a completed job wrote.
     */
    readonly onCompleted?: (step: JobStep<z.output<P>>) => Promise<void>;
  } = {},
): (input: unknown) => Promise<R> {
  // A worker may send events to a tenant's own endpoint, through the outbound guard (docs/lineage.md).
  installGuardedDelivery();
  return async (input) => {
    let jobId: string | undefined;
    const measure = jobMeasure(job.name, input);
    try {
      const { job: ref, limits, params, resumed } = parseInput(job, input);
      jobId = ref.job_id;
      // A step resumed after its handed query did the query's work on Athena; a first call picks the job up.
      measure.started(ref, resumed === undefined ? runsOn() : 'athena');
      await markRunning(ref, firstStage, runsOn());
      // OpenLineage (docs/lineage.md): sent beside the work, never awaited by it; a resumed step's run has started.
      if (resumed === undefined) sendRunEvent(ref.tenant_id, () => describeJob('START', ref, params));
      const pulse = new JobPulse(ref, limits.inactivity_seconds, firstStage);
      // Named after the job, so that a folder a dead process left says whose it was.
      const workDir = await mkdtemp(join(config.workDirectory, `${ref.job_id}-`));
      const step = { job: ref, params, pulse, workDir, resumed };
      // The lines the work writes (an engine slot's, a connector call's) name the job and its tenant.
      const run = () =>
        withMetricContext({ tenant_id: ref.tenant_id, job_id: ref.job_id }, async () => {
          const outcome = await work(step);
          pulse.throwIfAborted();
          return outcome;
        });
      const complete = async (outcome: JobOutcome<R>, progress: JobProgress) => {
        await markCompleted(ref, progress, outcome.fields ?? {});
        sendRunEvent(ref.tenant_id, () => describeJob('COMPLETE', ref, params));
      };
      let completed = false;
      const afterCompleted = async () => {
        completed = true;
        await options.onCompleted?.(step);
      };
      try {
        if (options.countsOwnCpu) {
          const outcome = await run();
          // A step that hands its machine a query stays IN_PROGRESS; its next call completes it.
          if (outcome.continues) await markAwaiting(ref, outcome.progress, outcome.continues.forSeconds);
          else await complete(outcome, outcome.progress);
          measure.ended(outcome.continues ? 'continues' : 'completed', outcome.progress);
          if (!outcome.continues) await afterCompleted();
          return outcome.output;
        }
        // The job's CPU time goes to the tenant's usage and to its progress, in the same breath (docs/quota.md).
        // (A step that continues counts its own CPU: see JobOutcome.continues.)
        const { result, cpuSeconds } = await withCpuCounted(
          ref.tenant_id,
          async () => ({ value: await run(), elsewhereCpuSeconds: 0 }),
          (outcome, cpuSeconds) => [complete(outcome, { ...outcome.progress, cpu_seconds: cpuSeconds })],
        );
        measure.ended('completed', { ...result.progress, cpu_seconds: cpuSeconds });
        await afterCompleted();
        return result.output;
      } catch (error) {
        // A failure after the COMPLETED write (in onCompleted) leaves the job's output alone.
        if (!completed)
          await options
            .onFailure?.(step)
            .catch((cleanup: unknown) =>
              logger.warn(`cleanup of a failed ${job.name} failed`, { jobId, error: cleanup as Error }),
            );
        throw error;
      } finally {
        pulse.stop();
        await rm(workDir, { recursive: true, force: true });
        // After the job's status is written: what is still in flight gets a bounded wait before the function returns.
        await flushRunEvents();
      }
    } catch (error) {
      logger.info(`${job.name} failed`, { jobId, error: error as Error });
      const failure = jobFailureOf(error);
      measure.failed(failure);
      throw failure;
    }
  };
}

/**
 * A work step's metrics and trace (shared/observability): its start, and how it ended with
 * its duration, rows, bytes and CPU, by job kind and where it ran; a subsegment annotated
 * with the tenant, the job kind and id, and the failure's code.
 */
function jobMeasure(kind: string, input: unknown) {
  const started = performance.now();
  const span = openSpan(kind, { job: kind });
  let ran: { readonly ref: JobRef; readonly ranOn: JobPlace } | undefined;
  const end = (outcome: JobEndRecord['outcome'], progress?: JobProgress) => {
    const code = typeof outcome === 'string' ? undefined : outcome.code;
    recordJobEnd({
      job: kind,
      ranOn: ran?.ranOn ?? runsOn(),
      durationMs: Math.round(performance.now() - started),
      outcome,
      cpuSeconds: progress?.cpu_seconds,
      rows: progress?.rows,
      bytes:
        progress?.bytes_read === undefined && progress?.bytes_written === undefined
          ? undefined
          : (progress.bytes_read ?? 0) + (progress.bytes_written ?? 0),
      tenantId: ran?.ref.tenant_id ?? tenantOfInput(input),
      jobId: ran?.ref.job_id,
    });
    span.annotate({ code, outcome: code === undefined ? String(outcome) : 'failed' });
    span.close();
  };
  return {
    started(ref: JobRef, ranOn: JobPlace) {
      ran = { ref, ranOn };
      span.annotate({ tenant: ref.tenant_id, job_id: ref.job_id, ran_on: ranOn });
      if (ranOn !== 'athena') recordJobStart(kind, ranOn, { tenant_id: ref.tenant_id, job_id: ref.job_id });
    },
    ended: end,
    failed(failure: unknown) {
      span.fail(failure);
      // jobFailureOf passes on only a superseded step's error (the job is another step's now) as other than a JobFailure.
      end(failure instanceof JobFailure ? { code: failure.jobError.code } : 'superseded');
    },
  };
}

/** The tenant an input names, for a step whose input did not parse. */
function tenantOfInput(input: unknown): string | undefined {
  const job = (input as { job?: { tenant_id?: unknown } } | undefined)?.job;
  return typeof job?.tenant_id === 'string' ? job.tenant_id : undefined;
}
