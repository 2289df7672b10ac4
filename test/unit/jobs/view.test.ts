import { describe, expect, it } from 'vitest';
import { pendingExecution } from '../../../shared/jobs/status';
import { abandonedAfterSeconds, executionView, isAbandoned, isRunning } from '../../../shared/jobs/view';

const started = Date.parse('2026-11-21T10:00:00.000Z');
const INACTIVITY = 120;
const limit = abandonedAfterSeconds(INACTIVITY) * 1000;

describe('how a stored execution reads', () => {
  const pending = pendingExecution('import-1', new Date(started).toISOString());

  it('fills the dates that have not happened with null', () => {
    expect(executionView(pending, started + 1000, INACTIVITY)).toEqual({
      job_id: 'import-1',
      status: 'PENDING',
      progress: { stage: 'QUEUED', percent: 0 },
      heartbeat_date: '2026-11-21T10:00:00.000Z',
      started_date: null,
      ended_date: null,
    });
  });

  it('a running job silent for longer than the limit reads as FAILED 10-1047 and no longer blocks', () => {
    const running = { ...pending, status: 'IN_PROGRESS' as const, started_date: pending.heartbeat_date };
    expect(isRunning(running, started + limit, INACTIVITY)).toBe(true);
    expect(isAbandoned(running, started + limit + 1, INACTIVITY)).toBe(true);
    expect(isRunning(running, started + limit + 1, INACTIVITY)).toBe(false);
    expect(executionView(running, started + limit + 1, INACTIVITY)).toMatchObject({
      status: 'FAILED',
      ended_date: running.heartbeat_date,
      error: { code: '10-1047' },
    });
  });

  it('a job its machine holds (a query it waits for) is not abandoned before the wait’s bound, and never shows it', () => {
    const held = {
      ...pending,
      status: 'IN_PROGRESS' as const,
      started_date: pending.heartbeat_date,
      awaiting_until: new Date(started + 3600_000).toISOString(),
    };
    expect(isRunning(held, started + 3600_000 + limit, INACTIVITY)).toBe(true);
    expect(isAbandoned(held, started + 3600_000 + limit + 1, INACTIVITY)).toBe(true);
    expect(executionView(held, started + limit + 1, INACTIVITY)).not.toHaveProperty('awaiting_until');
    expect(executionView(held, started + limit + 1, INACTIVITY).status).toBe('IN_PROGRESS');
  });

  it('an ended job is never abandoned', () => {
    const done = { ...pending, status: 'COMPLETED' as const, ended_date: pending.heartbeat_date };
    expect(isAbandoned(done, started + limit * 10, INACTIVITY)).toBe(false);
    expect(executionView(done, started + limit * 10, INACTIVITY).status).toBe('COMPLETED');
  });
});
