import type * as z from 'zod';
import { is, type Condition } from './expressions';
import { checkBeforeWrite, parseItem } from './items';
import { keys, type PlatformCollection } from './keys';
import { deleteItem, putItem, queryItems, readItem } from './table';
import { tx, type TransactItem } from './transactions';

/**
 * The repository of one collection of platform records (keys.platformRecord): records of the
 * admin plane that belong to no tenant, keyed by a string id. Every read parses the record
 * with the collection's schema; every record is checked before it is written.
 */
export class PlatformRecords<T extends object> {
  constructor(
    private readonly collection: PlatformCollection,
    private readonly schema: z.ZodType<T>,
  ) {}

  async find(id: string): Promise<T | undefined> {
    const item = await readItem(keys.platformRecord(this.collection, id));
    return item ? parseItem(this.schema, this.collection, item) : undefined;
  }

  /** Every record of the collection, in id order. */
  list(): Promise<T[]> {
    return queryItems(keys.platformPartition(this.collection), {}, (item) =>
      parseItem(this.schema, this.collection, item),
    );
  }

  /** At most `limit` records after id `after` (from the first when omitted), in id order: a bounded page of a walk. */
  async page(after: string | undefined, limit: number): Promise<T[]> {
    const found = await queryItems<T>(
      keys.platformPartition(this.collection),
      { after, pageSize: limit, enough: (read) => read.length >= limit },
      (item) => parseItem(this.schema, this.collection, item),
    );
    return found.slice(0, limit);
  }

  /** Writes the record, replacing what the id held, if `when` holds for what it held; false when not. */
  putIf(id: string, record: T, when: Condition): Promise<boolean> {
    return putItem(keys.platformRecord(this.collection, id), this.attributes(record), when);
  }

  /** Writes the record, replacing what the id held. */
  async put(id: string, record: T): Promise<void> {
    await putItem(keys.platformRecord(this.collection, id), this.attributes(record));
  }

  /** Writes the record unless the id already holds one; false when it did. */
  create(id: string, record: T): Promise<boolean> {
    return putItem(keys.platformRecord(this.collection, id), this.attributes(record), is.absent('pk'));
  }

  /** The write of a new record in a transaction: it fails the transaction when the id already holds one. */
  createWrite(id: string, record: T): TransactItem {
    return tx.put(keys.platformRecord(this.collection, id), this.attributes(record), { when: is.absent('pk') });
  }

  /** Removes the record if `when` holds for it; false when not. */
  removeIf(id: string, when: Condition): Promise<boolean> {
    return deleteItem(keys.platformRecord(this.collection, id), when);
  }

  /** Removes the record; nothing happens when there is none. */
  async remove(id: string): Promise<void> {
    await deleteItem(keys.platformRecord(this.collection, id));
  }

  private attributes(record: T): Record<string, unknown> {
    const checked: object = checkBeforeWrite(this.schema, this.collection, 'record', record);
    return { ...checked };
  }
}
