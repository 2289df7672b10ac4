import * as z from 'zod';
import type { Changes } from './expressions';
import { CorruptItemError, checkBeforeWrite, parseItem } from './items';
import type { EntityKind, ItemKey } from './keys';
import { queryItems, readItem, readItems, type QueryOptions } from './table';

/**
 * One kind of stored item and its schema: the schema every read parses the item with is the
 * one every write is checked with, whole for a put, attribute by attribute for an update, so
 * what a store writes it can read back.
 */

/** Attributes the layer keeps on every item besides its schema's: what it is and whose. */
const BOOKKEEPING = new Set(['kind', 'tenant_id']);

/** The schemas a value at `segments` may match: several under a union, none where the schema does not say. */
function schemasAt(schema: z.ZodType, segments: readonly string[]): z.ZodType[] {
  const { def } = schema._zod;
  if ('innerType' in def && def.innerType instanceof z.ZodType) return schemasAt(def.innerType, segments);
  if (segments.length === 0) return [schema];
  if (schema instanceof z.ZodObject) {
    const member = (schema.shape as Record<string, z.ZodType | undefined>)[segments[0]!];
    return member ? schemasAt(member, segments.slice(1)) : [];
  }
  if (schema instanceof z.ZodUnion) return schema.options.flatMap((option) => schemasAt(option as z.ZodType, segments));
  if (schema instanceof z.ZodRecord) return schemasAt(schema.valueType as z.ZodType, segments.slice(1));
  return [];
}

export class ItemType<T> {
  constructor(
    readonly kind: EntityKind,
    readonly schema: z.ZodType<T>,
  ) {}

  /** The item as its schema reads it. */
  read(item: Record<string, unknown>): T {
    return parseItem(this.schema, this.kind, item);
  }

  async find(key: ItemKey): Promise<T | undefined> {
    const item = await readItem(key);
    return item ? this.read(item) : undefined;
  }

  /** The items at these keys, in their order (undefined where none): a BatchGetItem per hundred keys. */
  async findMany(wanted: readonly ItemKey[]): Promise<(T | undefined)[]> {
    const keyText = (key: { readonly pk?: unknown; readonly sk?: unknown }) => `${String(key.pk)}|${String(key.sk)}`;
    const found = new Map((await readItems(wanted)).map((item) => [keyText(item), this.read(item)]));
    return wanted.map((key) => found.get(keyText(key)));
  }

  /** The items of a partition (whose sort key begins with `prefix`), read through the schema. */
  query(pk: string, prefix?: string, options: Omit<QueryOptions<T>, 'prefix' | 'projection'> = {}): Promise<T[]> {
    return queryItems(pk, { ...options, prefix }, (item) => this.read(item));
  }

  /** The attributes of a put: `value`, checked whole; `extra` are attributes no read needs (kind, tenant_id). */
  attributes(value: T, extra: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
    return { ...extra, ...checkBeforeWrite(this.schema, this.kind, 'item', value) };
  }

  /**
   * `changes`, once every value it sets is checked against the schema at its path. A path
   * the schema does not name is refused: a read would drop what it writes (`kind` and `tenant_id` are the layer's own). Removals and
   * counters are not values of the schema's shape and pass as they are.
   */
  changes(changes: Changes): Changes {
    for (const [path, value] of Object.entries({ ...changes.set, ...changes.setIfAbsent })) {
      if (BOOKKEEPING.has(path)) continue;
      const schemas = schemasAt(this.schema, path.split('.'));
      if (schemas.length === 0) throw new Error(`${this.kind}: ${path} is not an attribute of the item's schema`);
      const results = schemas.map((schema) => schema.safeParse(value));
      const failed = results.find((result) => !result.success);
      if (results.every((result) => !result.success) && failed && !failed.success)
        throw new CorruptItemError(this.kind, `${path} to be stored`, failed.error);
    }
    return changes;
  }
}
