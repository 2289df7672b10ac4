import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODIFYING_WORDS, readOnlyQueryProblem } from '../../../shared/data-sources/sql-statement';

/**
 * Property: what a query names (identifiers, string contents, dollar-quoted text, comment
 * text) never flips the verdict on it; only its structure does. Literals are written the
 * portable way, quotes doubled and backslashes doubled, so every dialect reading closes them
 * at the same place.
 */
const anyCharacter = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });
/** Any text, weighted towards what matters to a lexer and to the verdict. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom("'", '"', '`', '\\', ';', '$', '-', '/', '*', '\n', ' ', 'DROP ', 'delete', 'INTO'),
    anyCharacter,
  ),
  maxLength: 24,
});

const quoted = (quote: string) => (text: string) =>
  `${quote}${text.replaceAll('\\', '\\\\').replaceAll(quote, quote + quote)}${quote}`;

const bareIdentifier = fc
  .stringMatching(/^[a-z_][a-z0-9_]{0,12}$/)
  .filter((word) => !MODIFYING_WORDS.has(word.toUpperCase()));
const identifier = fc.oneof(bareIdentifier, anyText.map(quoted('"')), anyText.map(quoted('`')));
const stringLiteral = fc.oneof(
  anyText.map(quoted("'")),
  anyText.filter((text) => !text.includes('$$') && !text.endsWith('$')).map((text) => `$$${text}$$`),
);
const blockComment = anyText
  .filter((text) => !text.includes('/*') && !text.includes('*/') && !text.endsWith('/'))
  .map((text) => `/*${text}*/`);
const lineComment = anyText.map((text) => `--${text.replaceAll('\n', ' ')}\n`);

interface Holes {
  readonly ids: readonly string[];
  readonly strings: readonly string[];
  readonly block: string;
  readonly line: string;
}

const holes = fc.record({
  ids: fc.array(identifier, { minLength: 4, maxLength: 4 }),
  strings: fc.array(stringLiteral, { minLength: 3, maxLength: 3 }),
  block: blockComment,
  line: lineComment,
});

type Template = (holes: Holes) => string;

const READ_ONLY: readonly Template[] = [
  ({ ids: [a, b, c], strings: [s, t] }) => `SELECT ${a}, ${s} AS x FROM ${b} WHERE ${c} = ${t}`,
  ({ ids: [a, b, c], strings: [s], line }) =>
    `WITH ${a} AS (SELECT ${s} AS ${b}) SELECT * FROM ${a} ${line}ORDER BY ${c}`,
  ({ ids: [a, b], strings: [s, t, u], block }) =>
    `SELECT replace(${a}, ${s}, ${t}) ${block} FROM ${b} WHERE ${a} IN (${u});`,
  ({ ids: [a, b, c, d], block, line }) => `${line}${block}SELECT ${a}.${b}, count(*) FROM ${c} GROUP BY ${d}`,
];

const REFUSED: readonly Template[] = [
  ({ ids: [a, b], strings: [s] }) => `SELECT ${s} FROM ${a}; DROP TABLE ${b}`,
  ({ ids: [a, b], strings: [s], line }) => `WITH ${a} AS (SELECT ${s}) ${line}DELETE FROM ${b}`,
  ({ ids: [a, b, c], strings: [s] }) => `SELECT ${a} INTO ${b} FROM ${c} WHERE ${a} = ${s}`,
  ({ ids: [a, b], strings: [s], block }) => `UPDATE ${a} ${block} SET ${b} = ${s}`,
  ({ ids: [a, b], strings: [s, t] }) => `SELECT ${s}, ${a} FROM ${b} FOR UPDATE -- ${t}`,
];

describe('the verdict depends on structure, not on names or contents', () => {
  it('keeps read-only templates read-only whatever fills them', () => {
    fc.assert(
      fc.property(fc.constantFrom(...READ_ONLY), holes, (template, filled) => {
        expect(readOnlyQueryProblem(template(filled))).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps refused templates refused whatever fills them', () => {
    fc.assert(
      fc.property(fc.constantFrom(...REFUSED), holes, (template, filled) => {
        expect(readOnlyQueryProblem(template(filled))).toBeDefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('answers any input, however malformed, without throwing', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(
            fc.constantFrom("'", '"', '`', '\\', '$', '/*', '*/', '--', '//', ';', '\n', 'SELECT ', 'drop '),
            anyCharacter,
          ),
          maxLength: 60,
        }),
        (sql) => {
          const problem = readOnlyQueryProblem(sql);
          expect(problem === undefined || typeof problem === 'string').toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
