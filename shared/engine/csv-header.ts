/**
 * The header line of a CSV file, read before DuckDB sees the file: DuckDB renames duplicate
 * and empty header names (a_1, column2), so a header it would silently alter can only be
 * refused by looking at it first. The header also fixes the delimiter: left to itself,
 * DuckDB's sniffer answers a ragged file with a dialect that does not split it (one column
 * holding whole lines) instead of an error.
 *
 * Quoting is RFC 4180's: fields may be enclosed in double quotes, a quote inside is doubled.
 */

/** Delimiters considered, in order of preference when the header holds as many of each. */
export const DELIMITER_CANDIDATES = [',', ';', '\t', '|'] as const;
export type Delimiter = (typeof DELIMITER_CANDIDATES)[number];

const QUOTE = '"';

/** Longest column name accepted, in characters. */
export const MAX_COLUMN_NAME_LENGTH = 255;

/** C0 and C1 control characters (tab, CR and LF among them), DEL, and Unicode line and paragraph separators. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export interface HeaderLine {
  readonly text: string;
  /** Whether a line break (outside quotes) ended the line; false when the text ran out first. */
  readonly ended: boolean;
  /** Whether the text ran out inside a quoted field. */
  readonly inQuotes: boolean;
}

/** The first line of `text`; line breaks inside quotes belong to the line. */
export function headerLine(text: string): HeaderLine {
  let inQuotes = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === QUOTE) inQuotes = !inQuotes;
    else if (!inQuotes && (character === '\n' || character === '\r'))
      return { text: text.slice(0, index), ended: true, inQuotes };
  }
  return { text, ended: false, inQuotes };
}

/** The candidate that occurs most often outside quotes; undefined for a header of one column. */
export function detectDelimiter(line: string): Delimiter | undefined {
  const counts = new Map<string, number>();
  let inQuotes = false;
  for (const character of line) {
    if (character === QUOTE) inQuotes = !inQuotes;
    else if (!inQuotes) counts.set(character, (counts.get(character) ?? 0) + 1);
  }
  let best: Delimiter | undefined;
  for (const candidate of DELIMITER_CANDIDATES) {
    if ((counts.get(candidate) ?? 0) > (best ? (counts.get(best) ?? 0) : 0)) best = candidate;
  }
  return best;
}

/** The fields of one line: quotes removed, doubled quotes undoubled. */
export function splitFields(line: string, delimiter: string): string[] {
  const fields: string[] = [];
  let field = '';
  let inQuotes = false;
  for (let index = 0; index < line.length; index++) {
    const character = line[index];
    if (inQuotes) {
      if (character !== QUOTE) field += character;
      else if (line[index + 1] === QUOTE) {
        field += QUOTE;
        index++;
      } else inQuotes = false;
    } else if (character === QUOTE) inQuotes = true;
    else if (character === delimiter) {
      fields.push(field);
      field = '';
    } else field += character;
  }
  fields.push(field);
  return fields;
}

const shown = (name: string) => JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);

/**
 * Why these header names cannot be column names, or undefined when they can. Control
 * characters are refused anywhere in a name, surrounding whitespace included; otherwise names
 * are taken as DuckDB will use them, surrounding spaces removed, and compared ignoring case,
 * since SQL identifiers are case-insensitive.
 */
export function headerProblem(names: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const [index, raw] of names.entries()) {
    const name = raw.trim();
    if (name === '') return `column ${index + 1} has an empty name`;
    if (CONTROL_CHARACTER.test(raw)) return `column name ${shown(raw)} contains a control character or line break`;
    if ([...name].length > MAX_COLUMN_NAME_LENGTH)
      return `column name ${shown(name)} is longer than ${MAX_COLUMN_NAME_LENGTH} characters`;
    const key = name.toLowerCase();
    if (seen.has(key)) return `column name ${shown(name)} appears more than once (case is ignored)`;
    seen.add(key);
  }
  return undefined;
}
