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

  it('turns anything else into 10-500 with the root cause, never retried', () => {
    const failure = jobFailureOf(new RangeError('index out of range'));
    expect(failure.name).toBe(JOB_FAILED);
    expect(JSON.parse(failure.message)).toMatchObject({ code: '10-500', cause: 'RangeError: index out of range' });
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

  it.each(['States.Timeout', 'States.HeartbeatTimeout', 'Sandbox.Timedout', RUNNER_RESTARTED])(
    'maps %s to 10-1047, saying why',
    (name) => {
      const error = jobErrorFromState({ Error: name, Cause: 'whatever' });
      expect(error).toMatchObject({
        code: '10-1047',
        cause: expect.stringMatching(new RegExp(`^${name.replace('.', '\\.')}: `)),
      });
      expect(error.cause).not.toContain('whatever');
    },
  );

  it('reads a Lambda that died without an answer: killed at its timeout is 10-1047, out of memory or a crash 10-500', () => {
    const timedOut = jobErrorFromState({ Error: 'Lambda.Unknown', Cause: 'Task timed out after 900.00 seconds' });
    expect(timedOut).toMatchObject({
      code: '10-1047',
      cause: 'Lambda.Unknown: the worker ran past its Lambda timeout',
    });
    const killed = jobErrorFromState({
      Error: 'Lambda.Unknown',
      Cause: 'RequestId: 1 Error: Runtime exited with error: signal: killed Runtime.ExitError /var/task/index.mjs',
    });
    expect(killed).toMatchObject({
      code: '10-500',
      cause: 'Lambda.Unknown: the worker stopped without an answer (out of memory or a crash)',
    });
    expect(JSON.stringify(killed)).not.toContain('/var/task');
  });

  it('maps anything else to 10-500 without leaking the cause text', () => {
    const error = jobErrorFromState({ Error: 'Worker.Weird', Cause: 'The function /var/task/secret path crashed' });
    expect(error).toMatchObject({ code: '10-500', cause: 'Worker.Weird' });
    expect(JSON.stringify(error)).not.toContain('/var/task');
    expect(jobErrorFromState({})).toMatchObject({ code: '10-500' });
    expect(jobErrorFromState({ Error: JOB_FAILED, Cause: 'not json' })).toMatchObject({ code: '10-500' });
  });
});
