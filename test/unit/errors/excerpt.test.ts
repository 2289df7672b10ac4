import { describe, expect, it } from 'vitest';
import {
  AppError,
  boundedText,
  ECHO_LENGTH,
  EXCERPT_LENGTH,
  excerpt,
  renderMessage,
  systemText,
} from '../../../shared/errors/app-error';

describe('excerpt', () => {
  it('keeps a short plain value as it is', () => {
    expect(excerpt('sales-data/2024/')).toBe('sales-data/2024/');
    expect(excerpt('Ünïcødé 数据 😀')).toBe('Ünïcødé 数据 😀');
  });

  it(`cuts after ${EXCERPT_LENGTH} characters and marks the cut`, () => {
    const injection = `x'; DROP TABLE users; --${'A'.repeat(5000)}`;
    const shown = excerpt(injection);
    expect(shown).toBe(`${injection.slice(0, EXCERPT_LENGTH)}…`);
    expect(excerpt('b'.repeat(EXCERPT_LENGTH))).toBe('b'.repeat(EXCERPT_LENGTH));
  });

  it('never splits a number: one the cut would split is left out whole', () => {
    const limit = 'the table takes at most 1199999 rows';
    expect(excerpt(limit, 28)).toBe('the table takes at most …');
    expect(excerpt(limit, 31)).toBe('the table takes at most 1199999…');
    expect(excerpt('rows: 1,199,999 of them', 10)).toBe('rows: …');
    expect(excerpt('ratio 0.25 of all', 8)).toBe('ratio …');
    expect(excerpt('ratio 0.25 of all', 7)).toBe('ratio …');
    expect(excerpt('1234567890'.repeat(10), 15)).toBe('…');
    // A cut after a number or before one does not split it.
    expect(excerpt('12 rows and more', 2)).toBe('12…');
    expect(excerpt('rows 12', 5)).toBe('rows …');
    expect(excerpt('rows: 5. Then 6', 8)).toBe('rows: 5.…');
  });

  it('counts characters, so a surrogate pair is never split', () => {
    expect(excerpt('😀'.repeat(EXCERPT_LENGTH + 1))).toBe(`${'😀'.repeat(EXCERPT_LENGTH)}…`);
  });

  it('writes control and invisible characters and lone surrogates as JSON escapes', () => {
    expect(excerpt('a\u0000b\nc\td\r\u001b[31m')).toBe('a\\u0000b\\nc\\td\\r\\u001b[31m');
    expect(excerpt('path\\to')).toBe('path\\\\to');
    expect(excerpt('evil\u202egnp.exe')).toBe('evil\\u202egnp.exe');
    expect(excerpt('line\u2028break')).toBe('line\\u2028break');
    expect(excerpt('lone \ud800 and \udfff')).toBe('lone \\ud800 and \\udfff');
    expect(excerpt('tag \u{e0041}')).toBe('tag \\udb40\\udc41');
  });
});

describe('messages quote text values as excerpts', () => {
  it('shortens and escapes every text parameter, and leaves numbers alone', () => {
    const bucket = `evil\n${'x'.repeat(100)}`;
    expect(renderMessage('30-1115', [bucket])).toBe(`Bucket name evil\\n${'x'.repeat(EXCERPT_LENGTH - 5)}… is invalid`);
    expect(new AppError('10-404', { params: ['connection', 12345678901234567890n] }).message).toBe(
      'Entity connection with ID 12345678901234567890 not found',
    );
  });
});

describe('messages show numbers whole', () => {
  it('quotes a text the service wrote up to the longer bound', () => {
    const stated = `1200000 rows; the table takes at most ${1_199_999}`;
    expect(renderMessage('30-6003', [systemText(stated)])).toBe(
      `Transfer failed due to pricing-system size limits (${stated})`,
    );
    const long = systemText(`${'x'.repeat(ECHO_LENGTH - 5)} 1199999`);
    expect(renderMessage('30-6003', [long])).toBe(
      `Transfer failed due to pricing-system size limits (${'x'.repeat(ECHO_LENGTH - 5)} …)`,
    );
  });

  it('leaves a number out of a caller’s text rather than show part of it', () => {
    expect(renderMessage('10-404', ['table', `${'x'.repeat(35)} 123456789`])).toBe(
      `Entity table with ID ${'x'.repeat(35)} … not found`,
    );
  });
});

describe('boundedText: texts of a problem that may repeat input', () => {
  it('keeps a short text that shows every character as it is, backslashes included', () => {
    expect(boundedText('must match ^[a-z]\\d+$')).toBe('must match ^[a-z]\\d+$');
    expect(boundedText('x'.repeat(ECHO_LENGTH))).toBe('x'.repeat(ECHO_LENGTH));
  });

  it(`cuts after ${ECHO_LENGTH} characters and marks the cut`, () => {
    expect(boundedText('a'.repeat(5_000))).toBe(`${'a'.repeat(ECHO_LENGTH)}…`);
  });

  it('escapes control and invisible characters, and then backslashes too, so escapes stay readable', () => {
    expect(boundedText('tables.\u0000\r\nSet-Cookie')).toBe('tables.\\u0000\\r\\nSet-Cookie');
    expect(boundedText('a\\b\u202e')).toBe('a\\\\b\\u202e');
    expect(boundedText('\u0000'.repeat(300))).toBe(`${'\\u0000'.repeat(ECHO_LENGTH)}…`);
  });
});
