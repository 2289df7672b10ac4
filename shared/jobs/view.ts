import { AppError } from '../errors/app-error';
import type { JobExecution } from '../model/job';
import { jobErrorOf } from './failure';
import type { StoredExecution } from './status';

/**
 * A running job whose worker has been silent this long is dead (a crashed worker, a lost
 * state machine): it reads as FAILED with 10-1047, and its lock may be taken over. Workers
 * heartbeat every few seconds while alive, whatever they are doing.
 */
export function abandonedAfterSeconds(inactivitySeconds: number): number {
  return inactivitySeconds * 2 + 60;
}

export function isAbandoned(execution: StoredExecution, now: number, inactivitySeconds: number): boolean {
  if (execution.status !== 'PENDING' && execution.status !== 'IN_PROGRESS') return false;
  // A job its machine holds (a query it waits for) sends no heartbeat until the wait's bound.
  const alive = Math.max(Date.parse(execution.heartbeat_date), Date.parse(execution.awaiting_until ?? '') || 0);
  return now - alive > abandonedAfterSeconds(inactivitySeconds) * 1000;
}

export function isRunning(execution: StoredExecution, now: number, inactivitySeconds: number): boolean {
  return (
    (execution.status === 'PENDING' || execution.status === 'IN_PROGRESS') &&
    !isAbandoned(execution, now, inactivitySeconds)
  );
}

/** The execution as callers see it. */
export function executionView(execution: StoredExecution, now: number, inactivitySeconds: number): JobExecution {
  const { awaiting_until: _held, ...visible } = execution;
  const view: JobExecution = {
    ...visible,
    started_date: execution.started_date ?? null,
    ended_date: execution.ended_date ?? null,
  };
  if (!isAbandoned(execution, now, inactivitySeconds)) return view;
  return {
    ...view,
    status: 'FAILED',
    ended_date: execution.heartbeat_date,
    error: jobErrorOf(new AppError('10-1047', { extraDetails: { cause: 'no heartbeat from the worker' } })),
  };
}
