import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors/app-error';
import {
  JOB_FAILED,
  JOB_TRANSIENT,
  JobFailure,
  RUNNER_RESTARTED,
  jobErrorFromState,
  jobFailureOf,
} from '../../../shared/jobs/failure';

describe('what a worker throws', () => {
  it('keeps a catalogue error’s code, message and cause; storage timeouts are transient', () => {
    const permanent = jobFailureOf(
      new AppError('30-1118', { extraDetails: { cause: 'landing/sales/ holds 3 objects, none .csv' } }),
    );
    expect(permanent).toBeInstanceOf(JobFailure);
    expect(permanent.name).toBe(JOB_FAILED);
    expect(JSON.parse(permanent.message)).toEqual({
      code: '30-1118',
      message: expect.stringContaining('no CSV files'),
      cause: 'landing/sales/ holds 3 objects, none .csv',
    });
    expect(jobFailureOf(new AppError('30-1110')).name).toBe(JOB_TRANSIENT);
    expect(jobFailureOf(new AppError('30-1100')).name).toBe(JOB_TRANSIENT);
    expect(jobFailureOf(new AppError('10-1002')).name).toBe(JOB_FAILED);
  });

  it('turns anything else into 10-500 with the root cause, without the runtime’s name for it, never retried', () => {
    const failure = jobFailureOf(new RangeError('index out of range'));
    expect(failure.name).toBe(JOB_FAILED);
    expect(JSON.parse(failure.message)).toMatchObject({ code: '10-500', cause: 'index out of range' });
    const fetched = jobFailureOf(new AppError('30-1100', { cause: new TypeError('TypeError: fetch failed') }));
    expect(JSON.parse(fetched.message)).toMatchObject({ code: '30-1100', cause: 'fetch failed' });
  });

  it('carries the error’s extraDetails, bounded, through Step Functions to the recorded error', () => {
    const failure = jobFailureOf(
      new AppError('30-6003', {
        params: ['1200000 rows; the table takes at most 1199999'],
        extraDetails: { rows: 1_200_000, max_rows: 1_199_999, cause: 'said apart', note: `a${'b'.repeat(300)}` },
      }),
    );
    const carried = jobErrorFromState({ Error: failure.name, Cause: failure.message });
    expect(carried).toMatchObject({
      code: '30-6003',
      cause: 'said apart',
      extraDetails: { rows: 1_200_000, max_rows: 1_199_999, note: `a${'b'.repeat(199)}…` },
    });
    expect(carried.extraDetails).not.toHaveProperty('cause');
    const huge = jobFailureOf(
      new AppError('10-1400', {
        extraDetails: Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`field${index}`, 'x'.repeat(150)])),
      }),
    );
    const kept = JSON.stringify((JSON.parse(huge.message) as { extraDetails: unknown }).extraDetails);
    expect(kept.length).toBeLessThanOrEqual(4_000);
    expect(kept).toContain('"field0"');
  });

  it('lets a superseded job stop without becoming a failure of its own', () => {
    const superseded = Object.assign(new Error('gone'), { name: 'Job.Superseded' });
    expect(jobFailureOf(superseded)).toBe(superseded);
  });
});

describe('what the failure recorder makes of a caught state failure', () => {
  const recorded = { code: '10-1003', message: 'File is corrupted', cause: 'invalid UTF-8 in landing/a.csv' };

  it('reads the worker’s error locally, where Cause is the message itself', () => {
    expect(jobErrorFromState({ Error: JOB_FAILED, Cause: JSON.stringify(recorded) })).toEqual(recorded);
  });

  it('reads the worker’s error deployed, where Cause is the Lambda runtime’s JSON', () => {
    const cause = JSON.stringify({
      errorType: JOB_TRANSIENT,
      errorMessage: JSON.stringify(recorded),
      trace: ['at x (/var/task/index.mjs:1:1)'],
    });
    expect(jobErrorFromState({ Error: JOB_TRANSIENT, Cause: cause })).toEqual(recorded);
  });

  it.each([
    ['States.Timeout', /time limit/, /^time limit: /],
    ['Sandbox.Timedout', /time limit/, /^time limit: /],
    ['States.HeartbeatTimeout', /inactivity/, /^inactivity: /],
    [RUNNER_RESTARTED, /restart of the job runner/, /runner restarted/],
  ])("maps %s to 10-1047, saying what happened without the runner's names", (name, message, cause) => {
    const error = jobErrorFromState({ Error: name, Cause: 'whatever' });
    expect(error).toMatchObject({
      code: '10-1047',
      message: expect.stringMatching(message),
      cause: expect.stringMatching(cause),
    });
    expect(JSON.stringify(error)).not.toMatch(/whatever|States\.|Sandbox\.|Job\./);
  });

  it('reads a Lambda that died without an answer: killed at its timeout is 10-1047, out of memory or a crash 10-500', () => {
    const timedOut = jobErrorFromState({ Error: 'Lambda.Unknown', Cause: 'Task timed out after 900.00 seconds' });
    expect(timedOut).toMatchObject({
      code: '10-1047',
      message: expect.stringMatching(/time limit/),
      cause: expect.stringMatching(/^time limit/),
    });
    const killed = jobErrorFromState({
      Error: 'Lambda.Unknown',
      Cause: 'RequestId: 1 Error: Runtime exited with error: signal: killed Runtime.ExitError /var/task/index.mjs',
    });
    expect(killed).toMatchObject({ code: '10-500', message: expect.stringMatching(/out of memory or crashed/) });
    expect(JSON.stringify([timedOut, killed])).not.toMatch(/\/var\/task|Lambda\.|Runtime\./);
  });

  it('maps anything else to 10-500 without leaking the cause text', () => {
    const error = jobErrorFromState({ Error: 'Worker.Weird', Cause: 'The function /var/task/secret path crashed' });
    expect(error).toEqual({ code: '10-500', message: 'Internal server error' });
    expect(jobErrorFromState({})).toMatchObject({ code: '10-500' });
    expect(jobErrorFromState({ Error: JOB_FAILED, Cause: 'not json' })).toMatchObject({ code: '10-500' });
  });
});
