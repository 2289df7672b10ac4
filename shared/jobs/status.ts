import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import type { ItemKey } from '../db/keys';
import { failedAt, transactWrite, type TransactItem } from '../db/transactions';
import { JobExecution, type JobError, type JobProgress } from '../model/job';
import type { JobRef } from './job-ref';

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
});
export type StoredExecution = z.infer<typeof StoredExecution>;

export function pendingExecution(jobId: string, now: string): StoredExecution {
  return { job_id: jobId, status: 'PENDING', progress: { stage: 'QUEUED', percent: 0 }, heartbeat_date: now };
}

/**
 * One status write, said once for the subject and its mirror: `set` and `allowed` are given
 * the path of the execution (`#execution` on the subject, `#mirror.#execution` on the copy)
 * and the prefix of the fields the job produces.
 */
interface StatusWrite {
  readonly set: (execution: string, fields: string) => readonly string[];
  /** The statuses the write may move from. */
  readonly allowed: (execution: string) => string;
  readonly names?: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, unknown>>;
}

type Update = NonNullable<TransactItem['Update']>;

/** The subject's update, then its mirror's. */
function statusUpdates(ref: JobRef, write: StatusWrite): [Update, ...Update[]] {
  const update = (
    Key: ItemKey,
    execution: string,
    fields: string,
    names: Readonly<Record<string, string>>,
  ): Update => ({
    TableName: config.tableName,
    Key,
    UpdateExpression: `SET ${write.set(execution, fields).join(', ')}`,
    ConditionExpression: `${execution}.job_id = :job AND ${write.allowed(execution)}`,
    ExpressionAttributeNames: { '#execution': ref.attribute, '#status': 'status', ...write.names, ...names },
    ExpressionAttributeValues: { ':job': ref.job_id, ...write.values },
  });
  const subject = update(ref.subject, '#execution', '', {});
  return ref.mirror
    ? [subject, update(ref.mirror.item, '#mirror.#execution', '#mirror.', { '#mirror': ref.mirror.attribute })]
    : [subject];
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
  const [subject, ...mirrors] = statusUpdates(ref, write);
  if (mirrors.length > 0) {
    if (!(await commit(ref, [{ Update: subject }, ...mirrors.map((mirror) => ({ Update: mirror }))])))
      throw new JobSupersededError(ref);
    return;
  }
  try {
    await dynamoDocumentClient().send(new UpdateCommand(subject));
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new JobSupersededError(ref);
    throw error;
  }
}

/** A worker picked the job up (again, after a retry). */
export async function markRunning(ref: JobRef, progress: JobProgress): Promise<void> {
  await writeRunning(ref, {
    set: (execution) => [
      `${execution}.#status = :running`,
      `${execution}.progress = :progress`,
      `${execution}.heartbeat_date = :now`,
      `${execution}.started_date = if_not_exists(${execution}.started_date, :now)`,
    ],
    allowed: (execution) => `${execution}.#status IN (:pending, :running)`,
    values: {
      ':running': 'IN_PROGRESS',
      ':pending': 'PENDING',
      ':progress': progress,
      ':now': new Date().toISOString(),
    },
  });
}

/** Progress and a sign of life; refused once the job has ended. */
export async function reportProgress(ref: JobRef, progress: JobProgress): Promise<void> {
  await writeRunning(ref, {
    set: (execution) => [`${execution}.progress = :progress`, `${execution}.heartbeat_date = :now`],
    allowed: (execution) => `${execution}.#status = :running`,
    values: { ':running': 'IN_PROGRESS', ':progress': progress, ':now': new Date().toISOString() },
  });
}

function releaseLock(ref: JobRef): TransactItem[] {
  if (!ref.lock) return [];
  return [
    {
      Update: {
        TableName: config.tableName,
        Key: ref.lock,
        UpdateExpression: 'REMOVE active_job',
        ConditionExpression: 'active_job.job_id = :job',
        ExpressionAttributeValues: { ':job': ref.job_id },
      },
    },
  ];
}

/** The job's credentials go when it ends; deleting an item already gone is harmless. */
function eraseSecret(ref: JobRef): TransactItem[] {
  return ref.secret ? [{ Delete: { TableName: config.tableName, Key: ref.secret } }] : [];
}

/** The job's id leaves the set that held it while it ran; the item exists while the claim stands. */
function releaseClaim(ref: JobRef): TransactItem[] {
  if (!ref.claim) return [];
  return [
    {
      Update: {
        TableName: config.tableName,
        Key: ref.claim.item,
        UpdateExpression: 'DELETE #claims :job',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#claims': ref.claim.attribute },
        ExpressionAttributeValues: { ':job': new Set([ref.job_id]) },
      },
    },
  ];
}

/**
 * Ends the job: its execution (with `extra` in it), the fields the job produced (`fields`,
 * set on the subject item and its mirror), the release of its lock and claim and the
 * deletion of its credentials commit together.
 */
async function finish(
  ref: JobRef,
  status: 'COMPLETED' | 'FAILED',
  fromStatuses: readonly string[],
  extra: Record<string, unknown>,
  fields: Record<string, unknown>,
): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':status': status, ':now': new Date().toISOString() };
  const onExecution = ['#status = :status', 'ended_date = :now', 'heartbeat_date = :now'];
  Object.entries(extra).forEach(([field, value], index) => {
    names[`#x${index}`] = field;
    values[`:x${index}`] = value;
    onExecution.push(`#x${index} = :x${index}`);
  });
  const onItem: string[] = [];
  Object.entries(fields).forEach(([field, value], index) => {
    names[`#f${index}`] = field;
    values[`:f${index}`] = value;
    onItem.push(`#f${index} = :f${index}`);
  });
  fromStatuses.forEach((from, index) => (values[`:from${index}`] = from));
  const updates = statusUpdates(ref, {
    set: (execution, prefix) => [
      ...onExecution.map((set) => `${execution}.${set}`),
      ...onItem.map((set) => `${prefix}${set}`),
    ],
    allowed: (execution) => `${execution}.#status IN (${fromStatuses.map((_, index) => `:from${index}`).join(', ')})`,
    names,
    values,
  });
  return commit(ref, [
    ...updates.map((update) => ({ Update: update })),
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
 * Records the failure unless the job already ended; true when this call recorded it. Safe to
 * repeat (the state machine retries the recorder).
 */
export async function markFailed(ref: JobRef, error: JobError): Promise<boolean> {
  return finish(ref, 'FAILED', ['PENDING', 'IN_PROGRESS'], { error }, {});
}
