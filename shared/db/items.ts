import * as z from 'zod';
import { User, type Actor } from './actor';
import type { EntityKind, PlatformCollection } from './keys';

/**
 * Reading stored items: every read parses the item with its aggregate's schema instead of
 * casting it, so an item that does not have the shape the code expects fails loudly where it
 * is read, naming the item, instead of travelling on as a wrong value.
 */

/** Who did something (created_by, last_modified_by), stored as the API shows it (spec 2.2). */
export const StoredActor: z.ZodType<Actor> = User;

/** A stored item that does not match its schema: a bug or a hand-edited table, never a client error. */
export class CorruptItemError extends Error {
  constructor(kind: EntityKind | PlatformCollection, where: string, error: z.ZodError) {
    super(`${kind} ${where} does not match its schema: ${z.prettifyError(error)}`);
    this.name = 'CorruptItemError';
  }
}

/** The item as its schema reads it; keys and attributes the schema does not name are dropped. */
export function parseItem<T>(
  schema: z.ZodType<T>,
  kind: EntityKind | PlatformCollection,
  item: Record<string, unknown>,
): T {
  const parsed = schema.safeParse(item);
  if (!parsed.success) throw new CorruptItemError(kind, itemName(item), parsed.error);
  return parsed.data;
}

/** Checks a value before it is stored, so that what is written can be read back. */
export function checkBeforeWrite<T>(
  schema: z.ZodType<T>,
  kind: EntityKind | PlatformCollection,
  what: string,
  value: unknown,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new CorruptItemError(kind, `${what} to be stored`, parsed.error);
  return parsed.data;
}

export function itemName(item: Record<string, unknown>): string {
  return `item ${String(item.pk)} / ${String(item.sk)}`;
}
