import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import { failedAt, transactWrite, type TransactItem } from '../db/transactions';
import type { JobError, JobExecution, JobProgress } from '../model/job';
import type { JobRef } from './job-ref';

/**
 * Status writes of a running job. Every write is conditional on the job still owning the
 * execution (same job_id) and on the status allowing the move, so a late or retried worker
 * can never resurrect a job that failed, was aborted, or was superseded.
 */

/** The job no longer owns its execution; the worker stops quietly. */
export class JobSupersededError extends Error {
  constructor(ref: JobRef) {
    super(`job ${ref.job_id} no longer owns its ${ref.attribute}`);
    this.name = 'Job.Superseded';
  }
}

/** An execution as stored: started_date and ended_date appear when they happen. */
export type StoredExecution = Omit<JobExecution, 'started_date' | 'ended_date'> & {
  readonly started_date?: string;
  readonly ended_date?: string;
};

export function pendingExecution(jobId: string, now: string): StoredExecution {
  return { job_id: jobId, status: 'PENDING', progress: { stage: 'QUEUED', percent: 0 }, heartbeat_date: now };
}

const names = (ref: JobRef) => ({ '#execution': ref.attribute, '#status': 'status' });

async function conditionalUpdate(ref: JobRef, update: string, condition: string, values: Record<string, unknown>): Promise<void> {
  try {
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: ref.subject,
        UpdateExpression: update,
        ConditionExpression: `#execution.job_id = :job AND ${condition}`,
        ExpressionAttributeNames: names(ref),
        ExpressionAttributeValues: { ':job': ref.job_id, ...values },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new JobSupersededError(ref);
    throw error;
  }
}

/** A worker picked the job up (again, after a retry). */
export async function markRunning(ref: JobRef, progress: JobProgress): Promise<void> {
  const now = new Date().toISOString();
  await conditionalUpdate(
    ref,
    'SET #execution.#status = :running, #execution.progress = :progress, #execution.heartbeat_date = :now, ' +
      '#execution.started_date = if_not_exists(#execution.started_date, :now)',
    '#execution.#status IN (:pending, :running)',
    { ':running': 'IN_PROGRESS', ':pending': 'PENDING', ':progress': progress, ':now': now },
  );
}

/** Progress and a sign of life; refused once the job has ended. */
export async function reportProgress(ref: JobRef, progress: JobProgress): Promise<void> {
  await conditionalUpdate(
    ref,
    'SET #execution.progress = :progress, #execution.heartbeat_date = :now',
    '#execution.#status = :running',
    { ':running': 'IN_PROGRESS', ':progress': progress, ':now': new Date().toISOString() },
  );
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

/**
 * Ends the job: its execution, the fields the job produced (`fields`, set on the subject
 * item) and the release of its lock commit together.
 */
async function finish(ref: JobRef, status: 'COMPLETED' | 'FAILED', fromStatuses: readonly string[], extra: Record<string, unknown>, fields: Record<string, unknown>): Promise<boolean> {
  const now = new Date().toISOString();
  const values: Record<string, unknown> = { ':job': ref.job_id, ':status': status, ':now': now };
  const sets = ['#execution.#status = :status', '#execution.ended_date = :now', '#execution.heartbeat_date = :now'];
  const attributeNames: Record<string, string> = names(ref);
  Object.entries(extra).forEach(([field, value], index) => {
    attributeNames[`#x${index}`] = field;
    values[`:x${index}`] = value;
    sets.push(`#execution.#x${index} = :x${index}`);
  });
  Object.entries(fields).forEach(([field, value], index) => {
    attributeNames[`#f${index}`] = field;
    values[`:f${index}`] = value;
    sets.push(`#f${index} = :f${index}`);
  });
  const allowed = fromStatuses.map((_, index) => `:from${index}`);
  fromStatuses.forEach((from, index) => (values[`:from${index}`] = from));
  const outcome = await transactWrite([
    {
      Update: {
        TableName: config.tableName,
        Key: ref.subject,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `#execution.job_id = :job AND #execution.#status IN (${allowed.join(', ')})`,
        ExpressionAttributeNames: attributeNames,
        ExpressionAttributeValues: values,
      },
    },
    ...releaseLock(ref),
  ]);
  if (outcome.committed) return true;
  if (failedAt(outcome, 0)) return false;
  // The job still owned its execution but not its lock: the two are written together, so
  // this is a broken invariant, not a race.
  throw new Error(`job ${ref.job_id}: lock release refused`);
}

export async function markCompleted(ref: JobRef, progress: JobProgress, fields: Record<string, unknown>): Promise<void> {
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
