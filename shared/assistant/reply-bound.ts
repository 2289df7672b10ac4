/**
 * The bound of what one assistant reply may hold. A model may answer far more than asked (an
 * answer that ran to its output limit, a server that ignores `max_tokens`); the reply is one
 * DynamoDB item, which holds at most 400 KB, so a longer answer is cut here, before its SQL is
 * checked and before it is stored, and the reply says so (docs/assistant.md).
 */

/**
 * Most characters of a reply's content, its note included. Each UTF-16 unit is at most 3
 * bytes of UTF-8, so 60,000 of them stay under 180 KB: well under the item limit with the
 * message's other attributes, and far more than a useful answer needs.
 */
export const MAX_REPLY_CHARS = 60_000;

/** Room kept for the note that says what was cut. */
const NOTE_ROOM = 200;

/** A reply's text within MAX_REPLY_CHARS; `originalChars` is the uncut answer's length when it was cut. */
export interface BoundedReply {
  readonly text: string;
  readonly originalChars: number | undefined;
}

/** The note that ends a cut reply: what the user sees of the cut. */
export function cutNote(originalChars: number, keptChars: number): string {
  return `\n\n(The answer was cut: the model answered ${originalChars} characters and only the first ${keptChars} are kept.)`;
}

/**
 * `text` cut to fit MAX_REPLY_CHARS with its note. The cut never splits a surrogate pair, and a
 * code fence it would leave open is left out from its start: SQL in a reply is only ever SQL
 * the analyzer checked whole (reply.ts), and an unclosed fence is no block it sees.
 */
export function boundReply(text: string, maxChars = MAX_REPLY_CHARS): BoundedReply {
  if (text.length <= maxChars) return { text, originalChars: undefined };
  let end = Math.max(0, maxChars - NOTE_ROOM);
  // A high surrogate at the end would stand without its pair.
  if (end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end -= 1;
  let kept = text.slice(0, end);
  const fences = [...kept.matchAll(/```/g)];
  if (fences.length % 2 === 1) kept = kept.slice(0, fences.at(-1)!.index);
  kept = kept.trimEnd();
  return { text: kept + cutNote(text.length, kept.length), originalChars: text.length };
}
