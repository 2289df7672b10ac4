import { describe, expect, it } from 'vitest';
import { classifyNoAnswer } from '../../../shared/connectors/no-answer';
import { OutboundDestinationBlocked } from '../../../shared/connectors/outbound-guard';

/** An error as fetch raises it: a TypeError whose cause carries the errno name. */
function fetchFailure(code: string): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
}

describe('a call that got no answer', () => {
  it.each(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH'])(
    '%s: the endpoint leads nowhere',
    (code) => {
      expect(classifyNoAnswer(fetchFailure(code))).toMatchObject({ kind: 'unreachable' });
    },
  );

  it('a reset is a failing path to a real server, named by its reason', () => {
    expect(classifyNoAnswer(fetchFailure('ECONNRESET'))).toEqual({ kind: 'failing', reason: 'connection_reset' });
  });

  it('a time-out is failing whatever code rides along; an abort only when the caller says its signal is a time limit', () => {
    const timeout = Object.assign(new Error('timed out'), { name: 'TimeoutError', code: 'ECONNREFUSED' });
    expect(classifyNoAnswer(timeout)).toEqual({ kind: 'failing', reason: 'timeout' });
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    expect(classifyNoAnswer(abort)).toEqual({ kind: 'failing', reason: undefined });
    expect(classifyNoAnswer(abort, { abortIsTimeout: true })).toEqual({ kind: 'failing', reason: 'timeout' });
  });

  it('a destination the outbound guard refused is 30-1130 naming the host, found down the cause chain', () => {
    const sorted = classifyNoAnswer(
      new TypeError('fetch failed', { cause: new OutboundDestinationBlocked('10.0.0.1') }),
    );
    expect(sorted.kind).toBe('blocked');
    expect(sorted.kind === 'blocked' && sorted.error.code).toBe('30-1130');
  });

  it('an error without a network code has no reason', () => {
    expect(classifyNoAnswer(new Error('boom'))).toEqual({ kind: 'failing', reason: undefined });
  });
});
