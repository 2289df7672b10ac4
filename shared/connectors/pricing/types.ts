import { AppError } from '../../errors/app-error';
import { typeFamily, type TypeFamily } from '../../engine/column-types';
import { PRICING_TYPES, type PricingType } from '../../model/transfer';
import type { PricingColumn } from './connector';

/**
 * The type mapping of a transfer (docs/pricing.md, "Type mapping"): which pricing type each
 * source column goes as, and each engine value as the JSON scalar of its type. Pure, with no
 * engine dependency, so the API can check a mapping before a job starts.
 */

/** The type a column of each engine type family goes as when the mapping does not name it. */
const DEFAULT_TYPE: Readonly<Record<TypeFamily, PricingType | undefined>> = {
  text: 'STRING',
  'small-integer': 'INTEGER',
  'big-integer': 'INTEGER',
  'unsigned-big-integer': 'INTEGER',
  float: 'DECIMAL',
  decimal: 'DECIMAL',
  boolean: 'BOOLEAN',
  date: 'DATE',
  timestamp: 'DATETIME',
  'timestamp-utc': 'DATETIME',
  // TIME, UUID, BLOB…: no pricing type says what they are, so only an explicit STRING sends them.
  other: undefined,
  nested: undefined,
};

/** Types a mapping may name for a family besides its default: widening or text, never a loss the user did not ask for. */
const ALSO_ALLOWED: Readonly<Record<TypeFamily, readonly PricingType[]>> = {
  text: [],
  'small-integer': ['DECIMAL', 'STRING'],
  'big-integer': ['DECIMAL', 'STRING'],
  'unsigned-big-integer': ['DECIMAL', 'STRING'],
  float: ['STRING'],
  decimal: ['STRING'],
  boolean: ['STRING'],
  date: ['DATETIME', 'STRING'],
  timestamp: ['STRING'],
  'timestamp-utc': ['STRING'],
  other: ['STRING'],
  // A LIST or STRUCT has no scalar form the pricing system could hold.
  nested: [],
};

function isPricingType(name: string): name is PricingType {
  return (PRICING_TYPES as readonly string[]).includes(name);
}

function unmappable(column: string, reason: string): AppError {
  return new AppError('30-4009', { extraDetails: { column, reason } });
}

/**
 * The pricing columns of a source's columns (engine type names as DESCRIBE spells them): a
 * column named in `typeMapping` takes that type, the others their engine type's default.
 * 30-4009 naming the column when a mapped name is not a pricing type, the mapping is not
 * allowed for the column's engine type, or the column has no default.
 */
export function pricingColumnsOf(
  columns: readonly { name: string; type: string }[],
  typeMapping: Readonly<Record<string, string>> | null | undefined,
): PricingColumn[] {
  return columns.map(({ name, type }) => {
    const family = typeFamily(type);
    const fallback = DEFAULT_TYPE[family];
    const mapped = typeMapping && Object.hasOwn(typeMapping, name) ? typeMapping[name] : undefined;
    if (mapped === undefined) {
      if (!fallback) throw unmappable(name, `no pricing type for ${type}; map the column to STRING or leave it out`);
      return { name, type: fallback };
    }
    if (!isPricingType(mapped))
      throw unmappable(name, `${mapped} is not a pricing type (one of ${PRICING_TYPES.join(', ')})`);
    if (mapped !== fallback && !ALSO_ALLOWED[family].includes(mapped))
      throw unmappable(name, `a ${type} column cannot be sent as ${mapped}`);
    return { name, type: mapped };
  });
}

/** A JSON scalar as the pricing system takes it. */
export type PricingValue = string | number | boolean | null;

const INTEGER_TEXT = /^-?\d+$/;
const DECIMAL_TEXT = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
const DATE_TEXT = /^-?\d{4,}-\d\d-\d\d$/;
/** A timestamp as the engine writes it ("T" or a space; a fraction; "Z", "+00" or "+00:00" for UTC). */
const DATETIME_TEXT = /^(-?\d{4,}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d(?:\.\d+)?)(Z|[+-]00(?::?00)?)?$/;

function badValue(type: PricingType, value: unknown): AppError {
  const shown = typeof value === 'object' ? Object.prototype.toString.call(value) : typeof value;
  return new AppError('30-4009', { extraDetails: { reason: `a ${shown} value cannot be sent as ${type}` } });
}

/** Text of a value that is not a JS primitive: a Date as ISO 8601, an engine value object by its own toString. */
function textOf(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

function integerValue(value: unknown): PricingValue {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  const text = typeof value === 'bigint' ? value.toString() : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || !INTEGER_TEXT.test(text)) throw badValue('INTEGER', value);
  const number = Number(text);
  // Beyond ±(2^53 − 1) a JSON number would lose digits: the exact digits go as a string.
  return Number.isSafeInteger(number) ? number : text;
}

function decimalValue(value: unknown): PricingValue {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw badValue('DECIMAL', value);
    return value;
  }
  if (typeof value === 'bigint') return value.toString();
  // A DECIMAL comes as its exact text ("1.500"); an engine decimal object prints the same.
  const text = typeof value === 'string' ? value.trim() : typeof value === 'object' ? textOf(value) : undefined;
  if (text === undefined || !DECIMAL_TEXT.test(text)) throw badValue('DECIMAL', value);
  return text;
}

function dateValue(value: unknown): PricingValue {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  const text = typeof value === 'string' || typeof value === 'object' ? textOf(value).trim() : '';
  if (!DATE_TEXT.test(text)) throw badValue('DATE', value);
  return text;
}

function dateTimeValue(value: unknown): PricingValue {
  if (value instanceof Date) return value.toISOString();
  const text = typeof value === 'string' || typeof value === 'object' ? textOf(value).trim() : '';
  if (DATE_TEXT.test(text)) return `${text}T00:00:00`;
  const parts = DATETIME_TEXT.exec(text);
  if (!parts) throw badValue('DATETIME', value);
  return `${parts[1]}T${parts[2]}${parts[3] ? 'Z' : ''}`;
}

/**
 * One engine value as the JSON scalar of its pricing type (docs/pricing.md, "Values"): null
 * stays null; a value that is not of the type is 30-4009.
 */
export function pricingValueOf(value: unknown, type: PricingType): PricingValue {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'STRING':
      return typeof value === 'string' ? value : textOf(value);
    case 'INTEGER':
      return integerValue(value);
    case 'DECIMAL':
      return decimalValue(value);
    case 'BOOLEAN':
      if (typeof value !== 'boolean') throw badValue('BOOLEAN', value);
      return value;
    case 'DATE':
      return dateValue(value);
    case 'DATETIME':
      return dateTimeValue(value);
  }
}
