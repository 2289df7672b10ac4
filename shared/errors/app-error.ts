import { errorCatalogue, type ErrorCode } from './catalogue';

/**
 * A message parameter the service wrote itself (a limit it states, a reason it composed),
 * as opposed to a text the caller sent: quoted up to ECHO_LENGTH characters instead of
 * EXCERPT_LENGTH, so what it says is whole (renderMessage).
 */
export class SystemText {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** `text` as a parameter the service wrote itself (SystemText). */
export const systemText = (text: string): SystemText => new SystemText(text);

export type ErrorParam = string | number | bigint | boolean | SystemText;

export interface AppErrorOptions {
  /** Values for the message template's placeholders {0}..{n}, in order. */
  readonly params?: readonly ErrorParam[];
  /** Extra context for the caller; for 10-1400 it maps each invalid field to its rule. */
  readonly extraDetails?: Readonly<Record<string, unknown>>;
  /** Technical root cause. Logged, never sent to the caller of an HTTP route. */
  readonly cause?: unknown;
  /**
   * HTTP status other than the catalogue's, only where the design fixes one: a wrong method,
   * an oversize body and a wrong media type answer 405, 413 and 415 with code 10-400
   * (shared/http/form-refusals.ts).
   */
  readonly status?: number;
  /**
   * What happened, in the user's words, where the catalogue's text says less: a job's error
   * message (spec 7.2) that tells a time limit from inactivity or memory.
   */
  readonly message?: string;
}

/**
 * A failure with a code of the catalogue. Everything that can go wrong in a way the caller
 * should hear about is thrown as an AppError; anything else becomes 10-500.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extraDetails: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    super(options.message ?? renderMessage(code, options.params ?? []), { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? errorCatalogue[code].status;
    this.extraDetails = options.extraDetails;
  }
}

/** The longest part of a submitted value a message repeats. */
export const EXCERPT_LENGTH = 40;

// Control and format characters (bidi overrides included), line and paragraph separators,
// lone surrogates, and the backslash that introduces the escapes.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\\]/gu;
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/**
 * The digits of a number that a cut at the end of `shown` would split, `rest` being what follows
 * the cut: a number's leading digits read as another number ("at most 1199" of 1199999), so
 * the whole number goes, with the separators between its digits (1,199,999 and 0.25).
 */
const SPLIT_NUMBER = /\d(?:[\d_]|[.,](?=\d))*[.,]?$/;
const continuesNumber = (shown: string, rest: string) =>
  (/\d$/.test(shown) && /^[.,]?\d/.test(rest)) || (/\d[.,]$/.test(shown) && /^\d/.test(rest));

/**
 * A value as a message may quote it: at most `limit` characters (code points, so a pair is never
 * split) and '…' when cut, with control and invisible characters written as JSON escapes (\n,
 * \u0000), so a message never carries a long payload, a line break or a character that hides
 * what follows. A cut never splits a number: one it would split is left out whole.
 */
export function excerpt(value: string, limit = EXCERPT_LENGTH): string {
  let shown = '';
  let count = 0;
  let cutAt: number | undefined;
  for (const character of value) {
    if (count++ === limit) {
      cutAt = shown.length;
      break;
    }
    shown += character;
  }
  if (cutAt !== undefined) {
    if (continuesNumber(shown, value.slice(cutAt))) shown = shown.replace(SPLIT_NUMBER, '');
    shown += '…';
  }
  return shown.replace(UNSAFE, (character) => SHORT_ESCAPES[character] ?? unicodeEscape(character));
}

/** The longest text a problem's extraDetails or instance carries (a field path, a rule, an engine's cause). */
export const ECHO_LENGTH = 200;

/** Characters no problem text carries as they are: UNSAFE without the backslash, which is safe on its own. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/**
 * A text of a problem that may repeat what the caller sent (a field name, an engine's message
 * quoting the SQL, the request path): kept as it is when it is short and shows every character,
 * else its excerpt of ECHO_LENGTH characters with every hidden character escaped.
 */
export function boundedText(value: string): string {
  return value.length <= ECHO_LENGTH && !HIDDEN.test(value) ? value : excerpt(value, ECHO_LENGTH);
}

/** \uXXXX for each UTF-16 unit, as JSON writes a character outside the BMP. */
function unicodeEscape(character: string): string {
  let escaped = '';
  for (let unit = 0; unit < character.length; unit++)
    escaped += `\\u${character.charCodeAt(unit).toString(16).padStart(4, '0')}`;
  return escaped;
}

/** A parameter as its message shows it: numbers whole, the service's own texts up to ECHO_LENGTH, others as excerpts. */
function shownParam(value: ErrorParam): string {
  if (value instanceof SystemText) return excerpt(value.text, ECHO_LENGTH);
  return typeof value === 'string' ? excerpt(value) : String(value);
}

/**
 * Fills {0}..{n} and capitalises the first letter; unknown placeholders stay visible. Text
 * values are often what a caller sent (a bucket name, a path, a table reference), so every one
 * goes in as an excerpt; texts the service wrote (SystemText) get the longer bound of echoed
 * texts, and no cut ever splits a number.
 */
export function renderMessage(code: ErrorCode, params: readonly ErrorParam[]): string {
  const text = errorCatalogue[code].message.replace(/\{(\d+)\}/g, (placeholder, index: string) => {
    const value = params[Number(index)];
    return value === undefined ? placeholder : shownParam(value);
  });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** 10-1400 with every violated field and its rule. */
export function validationError(fields: Readonly<Record<string, string>>): AppError {
  return new AppError('10-1400', { extraDetails: fields });
}

/** 10-404 for an entity that does not exist or belongs to another tenant (no existence leak). */
export function notFound(entity: string, id: ErrorParam): AppError {
  return new AppError('10-404', { params: [entity, id] });
}

/**
 * 10-1006: the item changed since the caller read it (its lock_version moved, or a concurrent
 * write won the race), so the write was not made; the caller reads again and retries.
 */
export function versionConflict(options: { readonly cause?: unknown } = {}): AppError {
  return new AppError('10-1006', options);
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
