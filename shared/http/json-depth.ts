/**
 * How deep request JSON may nest. Every recursive walk over user input (merge-patch, zod,
 * fingerprints, marshalling to DynamoDB) stays far from the stack limit under this bound, and
 * no request of the API needs more (README, "Limits").
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether JSON text nests objects and arrays deeper than `limit`, found by one iterative scan
 * of the raw text (brackets outside strings), so it is safe to call before anything parses
 * or walks the text. Text that is not valid JSON gets an answer too; the parser rejects it
 * afterwards.
 */
export function exceedsJsonDepth(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      depth -= 1;
    }
  }
  return false;
}
