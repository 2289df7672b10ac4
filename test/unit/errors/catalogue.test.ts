import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import { errorCatalogue, type ErrorCode } from '../../../shared/errors/catalogue';
import { renderMessage } from '../../../shared/errors/app-error';

const codes = Object.keys(errorCatalogue) as ErrorCode[];
/** The project's own codes (family 90, docs/errors.md); every other code is the specification's. */
const ownCodes = codes.filter((code) => code.startsWith('90-'));

function placeholders(message: string): number[] {
  return [...message.matchAll(/\{(\d+)\}/g)].map((match) => Number(match[1]));
}

describe('error catalogue', () => {
  it('holds exactly the 265 codes of the specification, and the project’s own after them', () => {
    expect(codes.filter((code) => !code.startsWith('90-'))).toHaveLength(265);
    expect(codes.slice(265)).toEqual(ownCodes);
  });

  it('lists every code of its own in docs/errors.md with its status', () => {
    const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    const listed = [...doc.matchAll(/^\| (90-\d+) +\| (\d{3}) +\|/gm)].map((match) => [match[1], Number(match[2])]);
    expect(listed).toEqual(ownCodes.map((code) => [code, errorCatalogue[code].status]));
  });

  it('spells every code <family>-<number>', () => {
    const malformed = codes.filter((code) => !/^\d{2}-\d{3,5}$/.test(code));
    expect(malformed).toEqual([]);
  });

  it('has no code twice, not even as an overwritten duplicate key in the source', () => {
    // A repeated key in the object literal would silently replace the first entry at run time.
    const source = readFileSync(new URL('../../../shared/errors/catalogue.ts', import.meta.url), 'utf8');
    const written = [...source.matchAll(/^\s*['"](\d{2}-\d+)['"]:\s*\{/gm)].map((match) => match[1]);
    expect(written).toHaveLength(codes.length);
    expect(new Set(written).size).toBe(codes.length);
    expect(new Set(codes.map((code) => `${code.slice(0, 2)}-${Number(code.slice(3))}`)).size).toBe(codes.length);
  });

  it('uses exactly the families 10, 20, 30, 40, 50, 70 and 80 of the specification, and 90 of its own', () => {
    const families = [...new Set(codes.map((code) => code.slice(0, 2)))].sort();
    expect(families).toEqual(['10', '20', '30', '40', '50', '70', '80', '90']);
  });

  it('answers every code with a status that HTTP defines', () => {
    const invalid = codes.filter((code) => {
      const { status } = errorCatalogue[code];
      return !Number.isInteger(status) || status < 100 || status > 599 || STATUS_CODES[status] === undefined;
    });
    expect(invalid).toEqual([]);
  });

  it('keeps the statuses the specification fixes for notable codes', () => {
    expect(errorCatalogue['10-1400'].status).toBe(400);
    expect(errorCatalogue['10-404'].status).toBe(404);
    expect(errorCatalogue['10-1006'].status).toBe(409);
    expect(errorCatalogue['10-1501'].status).toBe(501);
    expect(errorCatalogue['20-1031'].status).toBe(422);
    expect(errorCatalogue['30-1005'].status).toBe(408);
    expect(errorCatalogue['30-1112'].status).toBe(301);
    expect(errorCatalogue['30-1307'].status).toBe(429);
    expect(errorCatalogue['30-4005'].status).toBe(401);
    expect(errorCatalogue['50-1012'].status).toBe(502);
    expect(errorCatalogue['80-8036'].status).toBe(504);
  });

  it('gives every code a non-empty message without surrounding space', () => {
    const bad = codes.filter((code) => {
      const { message } = errorCatalogue[code];
      return message.trim() === '' || message !== message.trim();
    });
    expect(bad).toEqual([]);
  });

  it('numbers the placeholders of every message from {0} without gaps', () => {
    const gaps = codes.filter((code) => {
      const used = [...new Set(placeholders(errorCatalogue[code].message))].sort((a, b) => a - b);
      return used.some((index, position) => index !== position);
    });
    expect(gaps).toEqual([]);
  });

  it('renders every message fully, capitalised, once its placeholders are given', () => {
    for (const code of codes) {
      const count = new Set(placeholders(errorCatalogue[code].message)).size;
      const params = Array.from({ length: count }, (_, index) => `P${index}_value`);
      const text = renderMessage(code, params);
      expect(text, code).not.toMatch(/\{\d+\}/);
      expect(text.charAt(0), code).toBe(text.charAt(0).toUpperCase());
      for (const param of params) expect(text, code).toContain(param);
    }
  });
});
