import * as z from 'zod';
import type { Actor } from './actor';
import { CorruptItemError, StoredActor, itemName, parseItem } from './items';
import type { TopLevelKind } from './keys';

/**
 * The item of a top-level entity (keys.entity):
 *
 *   { kind, tenant_id, id, lock_version, name_key, data, created_by, created_date,
 *     last_modified_by, last_modified_date, ref_<name>?, <mirror>? }
 *
 * `data` is what users write (its schema is the aggregate's); `ref_<name>` are in-use
 * counters; mirrors are copies of other items' state that their writers keep on the entity
 * item (a data table's latest version), so that a list needs no read per entity. Mirrors are
 * not user edits: they never move lock_version.
 */

export interface Entity<D, M = Record<never, never>> {
  readonly id: number;
  readonly lock_version: number;
  readonly data: D;
  /** In-use counters, e.g. how many data sources reference a connection. */
  readonly refs: Readonly<Record<string, number>>;
  readonly mirrors: Partial<M>;
  readonly created_by: Actor;
  readonly created_date: string;
  readonly last_modified_by: Actor;
  readonly last_modified_date: string;
}

/** The audit fields every response shows (spec 2.2). */
export function auditFieldsOf(
  entity: Entity<unknown>,
): Pick<Entity<unknown>, 'created_by' | 'created_date' | 'last_modified_by' | 'last_modified_date'> {
  return {
    created_by: entity.created_by,
    created_date: entity.created_date,
    last_modified_by: entity.last_modified_by,
    last_modified_date: entity.last_modified_date,
  };
}

export const REF_PREFIX = 'ref_';
/** An in-use counter's value; one schema for every read (building one costs more than the check). */
const RefCount = z.int();

/** Reads an entity's items: one parse of the fixed attributes with the data, one of the mirrors. */
export class EntityItems<D, M> {
  private readonly base;

  constructor(
    private readonly kind: TopLevelKind,
    data: z.ZodType<D>,
    private readonly mirrors?: z.ZodType<Partial<M>>,
  ) {
    this.base = z.object({
      id: z.int(),
      lock_version: z.int(),
      data,
      created_by: StoredActor,
      created_date: z.string(),
      last_modified_by: StoredActor,
      last_modified_date: z.string(),
    });
  }

  toEntity(item: Record<string, unknown>): Entity<D, M> {
    const refs: Record<string, number> = {};
    for (const [attribute, value] of Object.entries(item)) {
      if (!attribute.startsWith(REF_PREFIX)) continue;
      const count = RefCount.safeParse(value);
      if (!count.success) throw new CorruptItemError(this.kind, `${itemName(item)} (${attribute})`, count.error);
      refs[attribute.slice(REF_PREFIX.length)] = count.data;
    }
    const mirrors = this.mirrors ? parseItem(this.mirrors, this.kind, item) : {};
    return { ...parseItem(this.base, this.kind, item), refs, mirrors };
  }
}
