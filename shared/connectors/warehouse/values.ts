import type { Column } from 'snowflake-sdk';

/**
 * Rows of a Snowflake result as CSV lines for the engine (RFC 4180, as csv-import.ts reads
 * it): text always quoted, so an empty string stays apart from NULL (an empty unquoted
 * field); numbers, booleans, dates and times unquoted in forms DuckDB's type detection knows.
 * Values arrive as the driver gives them with fetchAsString Number, JSON and Buffer: numbers
 * as Snowflake's exact text (no float rounding), variants as their JSON text, binaries in the
 * session's BINARY_OUTPUT_FORMAT; dates and timestamps as the driver's date objects, whose
 * epoch seconds and nanoseconds are written here (to microseconds, DuckDB's precision) rather
 * than in the session's output format, which may drop digits.
 */

/** The date objects the driver gives for DATE and TIMESTAMP_* columns. */
interface SnowflakeDate {
  getEpochSeconds(): number;
  getNanoSeconds(): number;
  getTimezone(): unknown;
}

function isSnowflakeDate(value: unknown): value is SnowflakeDate {
  return value instanceof Date && typeof (value as Partial<SnowflakeDate>).getEpochSeconds === 'function';
}

const quoted = (text: string): string => `"${text.replace(/"/g, '""')}"`;
const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** "YYYY-MM-DD HH:MM:SS[.ffffff]" of a wall-clock time given as epoch seconds and nanoseconds. */
function wallClock(epochSeconds: number, nanoSeconds: number, withTime: boolean): string {
  const date = new Date(epochSeconds * 1000);
  const day = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  if (!withTime) return day;
  const micros = Math.floor(nanoSeconds / 1000);
  const fraction = micros === 0 ? '' : `.${pad(micros, 6)}`;
  return `${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${fraction}`;
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

type Cell = (value: unknown) => string;

const textCell: Cell = (value) => (value === null || value === undefined ? '' : quoted(String(value)));
const plainCell: Cell = (value) => (value === null || value === undefined ? '' : String(value));

function dateCell(type: string): Cell {
  return (value) => {
    if (value === null || value === undefined) return '';
    if (!isSnowflakeDate(value)) return quoted(String(value));
    const seconds = value.getEpochSeconds();
    const nanos = value.getNanoSeconds();
    switch (type) {
      case 'date':
        return wallClock(seconds, 0, false);
      case 'timestamp_ntz':
        return wallClock(seconds, nanos, true);
      case 'timestamp_tz': {
        // The driver gives the value's own offset in minutes; the wall clock is shown in it.
        const offset = value.getTimezone();
        const minutes = typeof offset === 'number' ? offset : 0;
        return `${wallClock(seconds + minutes * 60, nanos, true)}${offsetText(minutes)}`;
      }
      default:
        // TIMESTAMP_LTZ is an instant: written in UTC.
        return `${wallClock(seconds, nanos, true)}+00:00`;
    }
  };
}

function cellOf(column: Column): Cell {
  const type = column.getType().toLowerCase();
  if (type === 'fixed' || type === 'real' || type === 'boolean' || type === 'time') return plainCell;
  if (type === 'date' || type.startsWith('timestamp')) return dateCell(type);
  return textCell;
}

/** The header line and a row formatter for the result's columns; lines end with "\n". */
export function csvLayout(columns: readonly Column[]): { header: string; line: (row: readonly unknown[]) => string } {
  const cells = columns.map(cellOf);
  return {
    header: `${columns.map((column) => quoted(column.getName())).join(',')}\n`,
    line: (row) => `${cells.map((cell, index) => cell(row[index])).join(',')}\n`,
  };
}
