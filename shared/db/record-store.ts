import type * as z from 'zod';
import { is, type Condition } from './expressions';
import type { IdempotentRequest } from './idempotent-create';
import { createRecordWrite, earlierCreate, replayedEntityId } from './idempotent-create';
import { ItemType } from './item-type';
import { keys, type RecordKind } from './keys';
import { deleteItem, putItem } from './table';
import { failedAt, transactWrite, tx, type TransactItem } from './transactions';

export interface RecordStoreConfig<T> {
  readonly kind: RecordKind;
  /** The schema of a record: what is written is checked with it, and every read parses with it. */
  readonly schema: z.ZodType<T>;
  /** The record's own key inside the tenant's partition of its kind. */
  readonly idOf: (record: T) => string;
}

export interface CreatedRecord<T> {
  readonly id: string;
  /** The record, or undefined when the create an Idempotency-Key replays made one that is gone since. */
  readonly record: T | undefined;
  /** True when an earlier request with the same Idempotency-Key already created it. */
  readonly replayed: boolean;
}

/**
 * Records keyed by their own string id in one partition per tenant (keys.record): no
 * counters, names or references, unlike EntityStore. Creates never overwrite, and may be
 * idempotent; deletes say whether there was something to delete.
 */
export class RecordStore<T extends object> {
  private readonly items: ItemType<T>;

  constructor(private readonly settings: RecordStoreConfig<T>) {
    this.items = new ItemType(settings.kind, settings.schema);
  }

  find(tenantId: string, id: string): Promise<T | undefined> {
    return this.items.find(keys.record(tenantId, this.settings.kind, id));
  }

  /** Every record of the tenant, in key order; with `prefix`, those whose id begins with it. */
  list(tenantId: string, prefix?: string): Promise<T[]> {
    return this.items.query(keys.recordPartition(tenantId, this.settings.kind), prefix);
  }

  /**
   * Writes a new record; a record of the same id makes it fail. With an Idempotency-Key, the
   * record of the key commits with it, and a retry (or a concurrent twin) gets the record the
   * first request created instead of a second one.
   */
  async create(tenantId: string, record: T, idempotency?: IdempotentRequest): Promise<CreatedRecord<T>> {
    const { kind, idOf } = this.settings;
    if (idempotency) {
      const earlier = await earlierCreate(tenantId, kind, idempotency);
      if (earlier !== undefined) return { id: earlier, record: await this.find(tenantId, earlier), replayed: true };
    }
    const id = idOf(record);
    if (!idempotency) {
      if (!(await putItem(keys.record(tenantId, kind, id), this.items.attributes(record, { kind }), is.absent('pk'))))
        throw this.taken(id);
      return { id, record, replayed: false };
    }
    const outcome = await transactWrite([
      this.createWrite(tenantId, record),
      createRecordWrite(tenantId, kind, idempotency, id),
    ]);
    if (outcome.committed) return { id, record, replayed: false };
    const raced = failedAt(outcome, 1);
    if (raced) {
      const earlier = replayedEntityId(kind, idempotency, raced.item);
      return { id: earlier, record: await this.find(tenantId, earlier), replayed: true };
    }
    throw this.taken(id);
  }

  /** The write of a new record in another operation's transaction: it fails the transaction when the id holds a record. */
  createWrite(tenantId: string, record: T): TransactItem {
    const { kind, idOf } = this.settings;
    return tx.put(keys.record(tenantId, kind, idOf(record)), this.items.attributes(record, { kind }), {
      when: is.absent('pk'),
    });
  }

  /** Writes the record whatever was stored under its id (a seed brought up to date). */
  async put(tenantId: string, record: T): Promise<void> {
    const { kind, idOf } = this.settings;
    await putItem(keys.record(tenantId, kind, idOf(record)), this.items.attributes(record, { kind }));
  }

  /** Writes the record over what its id holds if `when` holds for that; false when not. */
  putIf(tenantId: string, record: T, when: Condition): Promise<boolean> {
    const { kind, idOf } = this.settings;
    return putItem(keys.record(tenantId, kind, idOf(record)), this.items.attributes(record, { kind }), when);
  }

  /** Deletes the record if `when` holds for it; false when not (or when there was none). */
  deleteIf(tenantId: string, id: string, when: Condition): Promise<boolean> {
    return deleteItem(keys.record(tenantId, this.settings.kind, id), when);
  }

  /** Deletes the record; false when there was none. */
  delete(tenantId: string, id: string): Promise<boolean> {
    return deleteItem(keys.record(tenantId, this.settings.kind, id), is.present('pk'));
  }

  private taken(id: string): Error {
    return new Error(`${this.settings.kind} ${id}: create refused, a record of that id exists`);
  }
}
