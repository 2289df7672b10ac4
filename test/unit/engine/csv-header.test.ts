import { describe, expect, it } from 'vitest';
import { detectDelimiter, headerLine, headerProblem, splitFields } from '../../../shared/engine/csv-header';

describe('headerLine', () => {
  it('ends at the first line break outside quotes, LF or CRLF', () => {
    expect(headerLine('a,b\n1,2')).toEqual({ text: 'a,b', ended: true, inQuotes: false });
    expect(headerLine('a,b\r\n1,2')).toEqual({ text: 'a,b', ended: true, inQuotes: false });
    expect(headerLine('"a\nb",c\n1,2').text).toBe('"a\nb",c');
  });

  it('tells a line cut short, and one cut inside quotes', () => {
    expect(headerLine('a,b')).toEqual({ text: 'a,b', ended: false, inQuotes: false });
    expect(headerLine('a,"b\n1,2\n')).toMatchObject({ ended: false, inQuotes: true });
  });
});

describe('detectDelimiter', () => {
  it('takes the candidate found most often outside quotes', () => {
    expect(detectDelimiter('a,b,c')).toBe(',');
    expect(detectDelimiter('a;b;"c,d,e"')).toBe(';');
    expect(detectDelimiter('a\tb\tc')).toBe('\t');
    expect(detectDelimiter('a|b')).toBe('|');
  });

  it('prefers the comma on a tie, and finds none in a one-column header', () => {
    expect(detectDelimiter('a,b;c')).toBe(',');
    expect(detectDelimiter('"a,b"')).toBeUndefined();
    expect(detectDelimiter('name')).toBeUndefined();
  });
});

describe('splitFields', () => {
  it('removes quotes and undoubles doubled quotes', () => {
    expect(splitFields('a,"b,c","say ""hi""",', ',')).toEqual(['a', 'b,c', 'say "hi"', '']);
    expect(splitFields('x;"y;z"', ';')).toEqual(['x', 'y;z']);
  });
});

describe('headerProblem', () => {
  it('accepts ordinary names, surrounding spaces and non-ASCII included', () => {
    expect(headerProblem(['id', ' name ', 'Größe', 'a b', 'x'.repeat(255)])).toBeUndefined();
  });

  it.each([
    [['a', ''], 'empty name'],
    [['a', '   '], 'empty name'],
    [['a\nb'], 'control character'],
    [['a\r'], 'control character'],
    [['tab\there'], 'control character'],
    [['bell\u0007'], 'control character'],
    [['line\u2028separator'], 'control character'],
    [['x'.repeat(256)], 'longer than 255'],
    [['id', 'ID'], 'more than once'],
    [['id', ' id '], 'more than once'],
  ])('refuses %j (%s)', (names, reason) => {
    expect(headerProblem(names)).toContain(reason);
  });
});
