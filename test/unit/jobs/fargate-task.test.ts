/**
 * The Fargate path's pure parts (issue 39): what the failure recorder reads of a task that
 * stopped (the Cause of an `ecs:runTask.sync` state's States.TaskFailed), and the task's own
 * retry of transient failures, which must be the work step's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SINGLE_STEP_TEMPLATE } from '../../../infra/state-machines';
import { jobErrorFromState } from '../../../shared/jobs/failure';
import { TRANSIENT_RETRY } from '../../../shared/jobs/task-entry';

const stopped = (task: object) => jobErrorFromState({ Error: 'States.TaskFailed', Cause: JSON.stringify(task) });
const TASK_ARN = 'arn:aws:ecs:eu-west-1:1:task/engine/abc';

describe('a stopped task, as the recorder reads it', () => {
  it('killed (exit 137) or out of memory: 10-500 saying memory or crash, with the exit code', () => {
    const killed = stopped({
      TaskArn: TASK_ARN,
      StopCode: 'EssentialContainerExited',
      StoppedReason: 'Essential container in task exited',
      Containers: [{ Name: 'worker', ExitCode: 137, Reason: 'OutOfMemoryError: Container killed due to memory usage' }],
    });
    expect(killed).toMatchObject({ code: '10-500', message: expect.stringMatching(/out of memory or crashed/) });
    expect(killed.cause).toMatch(/exit code 137 \(killed\).*OutOfMemoryError/);
  });

  it('stopped by StopTask from outside: 10-444, aborted', () => {
    expect(
      stopped({
        TaskArn: TASK_ARN,
        StopCode: 'UserInitiated',
        StoppedReason: 'stopped by an operator',
        Containers: [],
      }),
    ).toEqual({
      code: '10-444',
      message: expect.stringMatching(/aborted/),
      cause: 'task stopped: stopped by an operator',
    });
  });

  it('never started: 10-500 saying so', () => {
    expect(
      stopped({ TaskArn: TASK_ARN, StopCode: 'TaskFailedToStart', StoppedReason: 'CannotPullContainerError' }),
    ).toMatchObject({ code: '10-500', cause: expect.stringMatching(/could not start: CannotPullContainerError/) });
  });

  it('a States.TaskFailed of anything but a task stays the internal 10-500', () => {
    expect(jobErrorFromState({ Error: 'States.TaskFailed', Cause: 'not json' })).toEqual({
      code: '10-500',
      message: 'Internal server error',
    });
  });
});

describe('the task’s retry of transient failures', () => {
  it('is the work step’s Job.Transient retrier', () => {
    const template = JSON.parse(readFileSync(SINGLE_STEP_TEMPLATE, 'utf8')) as {
      States: { Work: { Retry: { ErrorEquals: string[]; [key: string]: unknown }[] } };
    };
    const retrier = template.States.Work.Retry.find((entry) => entry.ErrorEquals.includes('Job.Transient'));
    expect(retrier).toMatchObject({
      IntervalSeconds: TRANSIENT_RETRY.intervalSeconds,
      MaxAttempts: TRANSIENT_RETRY.maxAttempts,
      BackoffRate: TRANSIENT_RETRY.backoffRate,
      MaxDelaySeconds: TRANSIENT_RETRY.maxDelaySeconds,
      JitterStrategy: 'FULL',
    });
  });
});
