import { describe, expect, it } from 'vitest';
import {
  AppError,
  boundedText,
  ECHO_LENGTH,
  EXCERPT_LENGTH,
  excerpt,
  renderMessage,
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
