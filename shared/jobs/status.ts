import * as z from 'zod';
import { allOf, is, type Changes, type Condition } from '../db/expressions';
import type { ItemKey } from '../db/keys';
import { updateItem } from '../db/table';
import { failedAt, transactWrite, tx, type TransactItem } from '../db/transactions';
import { JobExecution, type JobError, type JobProgress } from '../model/job';
import type { JobRef } from './job-ref';
import { sendJobEnd } from './job-end';

/**
 * Status writes of a running job. Every write is conditional on the job still owning the
 * execution (same job_id) and on the status allowing the move, so a late or retried worker
 * can never resurrect a job that failed, was aborted, or was superseded. A job with a mirror
 * (JobRef.mirror) writes the same to the copy, in the same transaction, under the same
 * conditions.
 */

/** The job no longer owns its execution; the worker stops quietly. */
export class JobSupersededError extends Error {
  constructor(ref: JobRef) {
    super(`job ${ref.job_id} no longer owns its ${ref.attribute}`);
    this.name = 'Job.Superseded';
  }
}

/** An execution as stored: started_date and ended_date appear when they happen. */
export const StoredExecution = JobExecution.omit({ started_date: true, ended_date: true }).extend({
  started_date: z.string().optional(),
  ended_date: z.string().optional(),
  /**
   * Until when the job's machine, not a worker, holds it (a `.sync` state such as an Athena
   * query, whose TimeoutSeconds bounds it): no heartbeat is due before then (view.ts). Never shown.
   */
  awaiting_until: z.string().optional(),
});
export type StoredExecution = z.infer<typeof StoredExecution>;

export function pendingExecution(jobId: string, now: string): StoredExecution {
  return { job_id: jobId, status: 'PENDING', progress: { stage: 'QUEUED', percent: 0 }, heartbeat_date: now };
}

/**
 * One status write, said once for the subject and its mirror: paths relative to the
 * execution, and fields the job produced (relative to the item, or to the mirror's copy).
 */
interface StatusWrite {
  readonly execution: Readonly<Record<string, unknown>>;
  readonly executionIfAbsent?: Readonly<Record<string, unknown>>;
  readonly fields?: Readonly<Record<string, unknown>>;
  /** The statuses the write may move from. */
  readonly from: readonly string[];
}

/** One item's status write: as a transaction's item, and as a single update. */
interface Update {
  readonly key: ItemKey;
  readonly item: TransactItem;
  readonly changes: Changes;
  readonly owned: Condition;
}

/** The subject's update, then its mirror's, each conditioned on the job owning the execution. */
function statusUpdates(ref: JobRef, write: StatusWrite): [Update, ...Update[]] {
  const update = (key: ItemKey, prefix: string): Update => {
    const execution = `${prefix}${ref.attribute}`;
    const under = (base: string, paths: Readonly<Record<string, unknown>> = {}) =>
      Object.fromEntries(Object.entries(paths).map(([path, value]) => [`${base}${path}`, value]));
    const changes = {
      set: { ...under(`${execution}.`, write.execution), ...under(prefix, write.fields) },
      setIfAbsent: under(`${execution}.`, write.executionIfAbsent),
    };
    const owned = allOf(
      is.equal(`${execution}.job_id`, ref.job_id),
      write.from.length === 1
        ? is.equal(`${execution}.status`, write.from[0])
        : is.oneOf(`${execution}.status`, write.from),
    );
    return { key, item: tx.update(key, changes, { when: owned }), changes, owned };
  };
  const subject = update(ref.subject, '');
  return ref.mirror ? [subject, update(ref.mirror.item, `${ref.mirror.attribute}.`)] : [subject];
}

/**
 * Commits the subject's write with the writes that go with it (its mirror's, a lock release);
 * false when the job no longer owns its execution. Those are written together with the
 * subject every time, so their refusal alone is a broken invariant, not a race.
 */
async function commit(ref: JobRef, writes: readonly TransactItem[]): Promise<boolean> {
  const outcome = await transactWrite([...writes]);
  if (outcome.committed) return true;
  if (failedAt(outcome, 0)) return false;
  throw new Error(`job ${ref.job_id}: its mirror or lock refused a write its ${ref.attribute} allowed`);
}

/** A write while the job runs: one conditional update, or a transaction with its mirror. */
async function writeRunning(ref: JobRef, write: StatusWrite): Promise<void> {
  const updates = statusUpdates(ref, write);
  const [subject] = updates;
  const written =
    updates.length > 1
      ? await commit(
          ref,
          updates.map((update) => update.item),
        )
      : await updateItem(subject.key, subject.changes, subject.owned);
  if (!written) throw new JobSupersededError(ref);
}

/** A worker picked the job up (again, after a retry), on a Lambda or a Fargate task (`runsOn`). */
export async function markRunning(
  ref: JobRef,
  progress: JobProgress,
  runsOn: NonNullable<StoredExecution['runs_on']> = 'lambda',
): Promise<void> {
  const now = new Date().toISOString();
  await writeRunning(ref, {
    execution: { status: 'IN_PROGRESS', progress, heartbeat_date: now, runs_on: runsOn },
    executionIfAbsent: { started_date: now },
    from: ['PENDING', 'IN_PROGRESS'],
  });
}

/**
 * The worker handed its machine something to wait for, for at most `seconds` (JobOutcome.continues):
 * the job stays IN_PROGRESS without heartbeats until the machine calls the worker again.
 */
export async function markAwaiting(ref: JobRef, progress: JobProgress, seconds: number): Promise<void> {
  const now = Date.now();
  await writeRunning(ref, {
    execution: {
      progress,
      heartbeat_date: new Date(now).toISOString(),
      awaiting_until: new Date(now + seconds * 1000).toISOString(),
    },
    from: ['IN_PROGRESS'],
  });
}

/** Progress and a sign of life; refused once the job has ended. */
export async function reportProgress(ref: JobRef, progress: JobProgress): Promise<void> {
  await writeRunning(ref, {
    execution: { progress, heartbeat_date: new Date().toISOString() },
    from: ['IN_PROGRESS'],
  });
}

function releaseLock(ref: JobRef): TransactItem[] {
  return ref.lock
    ? [tx.update(ref.lock, { remove: ['active_job'] }, { when: is.equal('active_job.job_id', ref.job_id) })]
    : [];
}

/** The job's credentials go when it ends; deleting an item already gone is harmless. */
function eraseSecret(ref: JobRef): TransactItem[] {
  return ref.secret ? [tx.delete(ref.secret)] : [];
}

/** The job's id leaves the set that held it while it ran; the item exists while the claim stands. */
function releaseClaim(ref: JobRef): TransactItem[] {
  if (!ref.claim) return [];
  return [
    tx.update(ref.claim.item, { delete: { [ref.claim.attribute]: new Set([ref.job_id]) } }, { when: is.present('pk') }),
  ];
}

/**
 * Ends the job: its execution (with `extra` in it), the fields the job produced (`fields`,
 * set on the subject item and its mirror), the release of its lock and claim and the
 * deletion of its credentials commit together.
 */
async function finish(
  ref: JobRef,
  status: 'COMPLETED' | 'FAILED' | 'ABORTED',
  fromStatuses: readonly string[],
  extra: Record<string, unknown>,
  fields: Record<string, unknown>,
): Promise<boolean> {
  const now = new Date().toISOString();
  const updates = statusUpdates(ref, {
    execution: { status, ended_date: now, heartbeat_date: now, ...extra },
    fields,
    from: fromStatuses,
  });
  return commit(ref, [
    ...updates.map((update) => update.item),
    ...releaseLock(ref),
    ...releaseClaim(ref),
    ...eraseSecret(ref),
  ]);
}

export async function markCompleted(
  ref: JobRef,
  progress: JobProgress,
  fields: Record<string, unknown>,
): Promise<void> {
  const done = await finish(ref, 'COMPLETED', ['IN_PROGRESS'], { progress }, fields);
  if (!done) throw new JobSupersededError(ref);
}

/**
 * Records the failure unless the job already ended, with the ref's failureFields; true when
 * this call recorded it. Safe to repeat (the state machine retries the recorder).
 */
export async function markFailed(ref: JobRef, error: JobError): Promise<boolean> {
  const recorded = await finish(ref, 'FAILED', ['PENDING', 'IN_PROGRESS'], { error }, { ...ref.failureFields });
  // The run's FAIL for OpenLineage, once: only the write that ended the job sends it (queued, when
  // for a tenant's own endpoint, before the caller answers: docs/lineage.md).
  if (recorded) await sendJobEnd(ref, 'FAILED', error);
  return recorded;
}

/**
 * A user cancelled the job (shared/jobs/cancel.ts): ABORTED with `error` (10-444), only from
 * PENDING or IN_PROGRESS, releasing what a failure releases and putting back its
 * failureFields; true when this call aborted it. The worker's next heartbeat is refused then,
 * which stops it and its engine (pulse.ts), and no later write of it (COMPLETED, the failure
 * recorder's FAILED) can move the execution again.
 */
export async function markAborted(ref: JobRef, error: JobError): Promise<boolean> {
  const aborted = await finish(ref, 'ABORTED', ['PENDING', 'IN_PROGRESS'], { error }, { ...ref.failureFields });
  if (aborted) await sendJobEnd(ref, 'ABORTED', error);
  return aborted;
}
