import type * as z from 'zod';
import { AppError, notFound, versionConflict } from '../errors/app-error';
import type { Actor } from './actor';
import { EntityItems, type Entity } from './entity-item';
import { allOf, is } from './expressions';
import { checkBeforeWrite } from './items';
import { createRecordWrite, earlierCreate, replayedEntityId, type IdempotentRequest } from './idempotent-create';
import { keys, normaliseName, type TopLevelKind } from './keys';
import {
  counterChange,
  entityRemoval,
  refAttribute,
  unchangedCheck,
  type Cascade,
  type RelatedWrite,
} from './related-writes';
import { allocateId, forgetIdBlock } from './id-blocks';
import { queryItems, readItem, readItems, updateItem } from './table';
import { failedAt, transactWrite, tx, type TransactItem } from './transactions';

export { auditFieldsOf, type Entity } from './entity-item';

export type { Cascade, RelatedWrite } from './related-writes';

export interface EntityStoreConfig<D, R extends string, M> {
  readonly kind: TopLevelKind;
  /** Entity name in error messages ("entity {0} with ID {1} not found"). */
  readonly label: string;
  /** The schema of `data`: what creates and replaces write, and what every read parses. */
  readonly data: z.ZodType<D>;
  /** Mirrors other writers keep on the entity's item (entity-item.ts); none when omitted. */
  readonly mirrors?: z.ZodType<Partial<M>>;
  /**
   * In-use counters: while one is above zero, delete fails with its error. A counter marked
   * `cascade` counts uses that go with the entity instead: the delete's `cascade` removes them
   * and commits only if the counter equals the number it removes.
   */
  readonly references: { readonly [K in R]: ((id: number) => AppError) | 'cascade' };
  /** The error for a missing entity, where the catalogue names one (a recipe: 20-1044); 10-404 when omitted. */
  readonly notFound?: (id: number) => AppError;
}

/** What a create may write besides the entity and its name claim. */
export interface CreateOptions<M> {
  readonly idempotency?: IdempotentRequest;
  /** Writes that commit with the create; given the new id, they may write the entity's children (a recipe's version 1). */
  readonly related?: readonly RelatedWrite[] | ((id: number) => readonly RelatedWrite[]);
  /** Mirrors the entity starts with, written on its item (the copy of a recipe's version 1). */
  readonly mirrors?: (id: number) => Partial<M>;
}

export interface Created<D, M> {
  readonly entity: Entity<D, M>;
  /** True when an earlier request with the same Idempotency-Key already created it. */
  readonly replayed: boolean;
}

const DELETE_ATTEMPTS = 3;

/**
 * The repository of one kind of top-level entity: per-tenant integer ids from an atomic
 * counter, reserved by blocks (id-blocks.ts), names unique per tenant (case-insensitive)
 * through name-claim items, optimistic locking on lock_version, reference counters for "in
 * use" rules, and idempotent creates.
 * Every write is conditional; every multi-item write is one transaction.
 */
export class EntityStore<D extends { readonly name: string }, R extends string = never, M = Record<never, never>> {
  private readonly items: EntityItems<D, M>;

  constructor(private readonly settings: EntityStoreConfig<D, R, M>) {
    this.items = new EntityItems(settings.kind, settings.data, settings.mirrors);
  }

  get label(): string {
    return this.settings.label;
  }

  async create(
    tenantId: string,
    actor: Actor,
    build: (id: number) => Promise<D> | D,
    options: CreateOptions<M> = {},
  ): Promise<Created<D, M>> {
    const { idempotency } = options;
    if (idempotency) {
      const earlier = await earlierCreate(tenantId, this.settings.kind, idempotency);
      if (earlier !== undefined) return { entity: await this.get(tenantId, earlier), replayed: true };
    }
    for (let attempt = 1; ; attempt++) {
      const created = await this.createWithNewId(tenantId, actor, build, options);
      if (created !== 'id taken') return created;
      // Only a block reserved in another store (a test's earlier twin) hands out a taken id: once more from the counter.
      forgetIdBlock(tenantId, this.settings.kind);
      if (attempt === 2) throw new Error(`${this.settings.label}: the id counter handed out taken ids twice`);
    }
  }

  private async createWithNewId(
    tenantId: string,
    actor: Actor,
    build: (id: number) => Promise<D> | D,
    options: CreateOptions<M>,
  ): Promise<Created<D, M> | 'id taken'> {
    const { idempotency } = options;
    const id = await allocateId(tenantId, this.settings.kind);
    const data = await build(id);
    const related = typeof options.related === 'function' ? options.related(id) : (options.related ?? []);
    const now = new Date().toISOString();
    const item = {
      ...keys.entity(tenantId, this.settings.kind, id),
      kind: this.settings.kind,
      tenant_id: tenantId,
      id,
      lock_version: 0,
      name_key: normaliseName(data.name),
      data,
      created_by: actor,
      created_date: now,
      last_modified_by: actor,
      last_modified_date: now,
      ...options.mirrors?.(id),
    };
    // Parsed before it is written: what this store writes, it can read back.
    const entity = this.items.toEntity(item);
    const writes: TransactItem[] = [
      tx.put(keys.entity(tenantId, this.settings.kind, id), item, { when: is.absent('pk') }),
      this.claimName(tenantId, data.name, id),
      ...related.map((write) => write.item),
    ];
    if (idempotency) writes.push(createRecordWrite(tenantId, this.settings.kind, idempotency, id));
    const outcome = await transactWrite(writes);
    if (outcome.committed) return { entity, replayed: false };

    if (idempotency) {
      const racedReplay = failedAt(outcome, writes.length - 1);
      if (racedReplay)
        return {
          entity: await this.get(tenantId, replayedEntityId(this.settings.kind, idempotency, racedReplay.item)),
          replayed: true,
        };
    }
    if (failedAt(outcome, 1)) throw new AppError('10-409', { params: [this.settings.label, 'name'] });
    if (failedAt(outcome, 0)) return 'id taken';
    related.forEach((write, index) => {
      const failed = failedAt(outcome, 2 + index);
      if (failed) throw write.onConditionFailure(failed.item);
    });
    throw new Error(`${this.settings.label} ${id}: create cancelled for an unexpected reason`);
  }

  async find(tenantId: string, id: number): Promise<Entity<D, M> | undefined> {
    const item = await readItem(keys.entity(tenantId, this.settings.kind, id));
    return item ? this.items.toEntity(item) : undefined;
  }

  /** The entities of these ids that exist, by id: one BatchGetItem per hundred ids. */
  async findMany(tenantId: string, ids: Iterable<number>): Promise<Map<number, Entity<D, M>>> {
    const items = await readItems([...new Set(ids)].map((id) => keys.entity(tenantId, this.settings.kind, id)));
    return new Map(items.map((item) => this.items.toEntity(item)).map((entity) => [entity.id, entity]));
  }

  async get(tenantId: string, id: number): Promise<Entity<D, M>> {
    const entity = await this.find(tenantId, id);
    if (!entity) throw this.missing(id);
    return entity;
  }

  /** Every entity of the tenant, in id order; ListQuery paging happens over this. */
  async list(tenantId: string): Promise<Entity<D, M>[]> {
    const items = await queryItems(keys.entityPartition(tenantId, this.settings.kind));
    return items.map((item) => this.items.toEntity(item));
  }

  /**
   * Replaces the entity's data if lock_version still equals `expectedLockVersion`; the caller
   * read `current` and derived `next` from it. `related` writes (say, a reference moving from
   * one connection to another) commit with it or not at all.
   */
  async replace(
    tenantId: string,
    actor: Actor,
    current: Entity<D, M>,
    expectedLockVersion: number,
    next: D,
    options: {
      readonly related?: readonly RelatedWrite[];
      /** Counters that must still be as read: uses that move with the entity (a data source's tables). */
      readonly refsAsRead?: readonly R[];
    } = {},
  ): Promise<Entity<D, M>> {
    const { related = [], refsAsRead = [] } = options;
    if (expectedLockVersion !== current.lock_version) throw versionConflict();
    checkBeforeWrite(this.settings.data, this.settings.kind, 'data', next);
    const now = new Date().toISOString();
    const key = keys.entity(tenantId, this.settings.kind, current.id);
    const changes = {
      set: {
        data: next,
        lock_version: expectedLockVersion + 1,
        name_key: normaliseName(next.name),
        last_modified_by: actor,
        last_modified_date: now,
      },
    };
    const asRead = allOf(
      is.equal('lock_version', expectedLockVersion),
      ...refsAsRead.map((ref) => is.count(refAttribute(ref), current.refs[ref] ?? 0)),
    );
    const renamed = normaliseName(next.name) !== normaliseName(current.data.name);
    if (!renamed && related.length === 0) {
      if (!(await updateItem(key, changes, asRead)))
        throw (await this.find(tenantId, current.id)) ? versionConflict() : this.missing(current.id);
    } else {
      // A rename moves the name claim; related writes (references moving) commit with it.
      const claims: TransactItem[] = renamed
        ? [this.releaseName(tenantId, current.data.name, current.id), this.claimName(tenantId, next.name, current.id)]
        : [];
      const outcome = await transactWrite([
        tx.update(key, changes, { when: asRead, returnOld: true }),
        ...claims,
        ...related.map((write) => write.item),
      ]);
      const stale = failedAt(outcome, 0);
      if (stale) throw stale.item ? versionConflict() : this.missing(current.id);
      if (renamed && failedAt(outcome, 2)) throw new AppError('10-409', { params: [this.settings.label, 'name'] });
      related.forEach((write, index) => {
        const failed = failedAt(outcome, 1 + claims.length + index);
        if (failed) throw write.onConditionFailure(failed.item);
      });
      if (!outcome.committed)
        throw new Error(`${this.settings.label} ${current.id}: update cancelled for an unexpected reason`);
    }
    return {
      ...current,
      data: next,
      lock_version: expectedLockVersion + 1,
      last_modified_by: actor,
      last_modified_date: now,
    };
  }

  /**
   * Deletes the entity unless a reference counter says it is in use; `related` writes (a
   * referenced entity's counter going down) and the `cascade` (uses that go with it) commit
   * with it. With `expectedLockVersion`, a stale view is refused (10-1006); without it, a
   * concurrent change (a rename, say) is simply re-read and the delete retried, as is a
   * cascade that changed meanwhile (a use joined, or one of them gained a use of its own).
   */
  async delete(
    tenantId: string,
    id: number,
    options: {
      readonly expectedLockVersion?: number;
      /** Writes that commit with the delete, derived from the entity as it is being deleted. */
      readonly related?:
        | readonly RelatedWrite[]
        | ((current: Entity<D, M>) => readonly RelatedWrite[] | Promise<readonly RelatedWrite[]>);
      /** The uses that go with the entity (counters marked `cascade`), found for the entity as read. */
      readonly cascade?: (current: Entity<D, M>) => Promise<Cascade<R>>;
    } = {},
  ): Promise<void> {
    const refs = Object.keys(this.settings.references) as R[];
    for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt += 1) {
      const current = await this.get(tenantId, id);
      if (options.expectedLockVersion !== undefined && options.expectedLockVersion !== current.lock_version) {
        throw versionConflict();
      }
      this.assertNotInUse(current);
      const related = typeof options.related === 'function' ? await options.related(current) : (options.related ?? []);
      const cascade: Cascade<R> = (await options.cascade?.(current)) ?? { writes: [], removed: {} };
      // In use only by the uses the cascade removes with it.
      const unused = refs.map((ref) =>
        is.count(refAttribute(ref), this.settings.references[ref] === 'cascade' ? (cascade.removed[ref] ?? 0) : 0),
      );
      const outcome = await transactWrite([
        tx.delete(keys.entity(tenantId, this.settings.kind, id), {
          when: allOf(is.equal('lock_version', current.lock_version), ...unused),
          returnOld: true,
        }),
        this.releaseName(tenantId, current.data.name, id),
        ...related.map((write) => write.item),
        ...cascade.writes.map((write) => write.item),
      ]);
      if (outcome.committed) return;
      related.forEach((write, index) => {
        const failed = failedAt(outcome, 2 + index);
        if (failed) throw write.onConditionFailure(failed.item);
      });
      const changed = failedAt(outcome, 0);
      if (changed && !changed.item) throw this.missing(id);
      if (changed?.item) {
        const now = this.items.toEntity(changed.item);
        this.assertNotInUse(now);
        if (options.expectedLockVersion !== undefined && now.lock_version !== options.expectedLockVersion)
          throw versionConflict();
      }
    }
    throw versionConflict();
  }

  /**
   * A counter change that commits with another resource's write: up when it starts using the
   * entity (which must exist), down when it stops (the counter must hold as many). With
   * `seenLockVersion` the entity must be as read: a use validated against it (a data source
   * against its connection) or derived from its data (a table's use of its data source's
   * connection) cannot commit after the entity changed (10-1006).
   */
  reference(
    tenantId: string,
    id: number,
    ref: R,
    delta: number,
    options: { readonly seenLockVersion?: number } = {},
  ): RelatedWrite {
    return this.counters(tenantId, id, { [ref]: delta } as Partial<Record<R, number>>, options);
  }

  /** Several counter changes in one write (as `reference`): a transaction writes an item once. */
  counters(
    tenantId: string,
    id: number,
    deltas: Partial<Record<R, number>>,
    options: { readonly seenLockVersion?: number } = {},
  ): RelatedWrite {
    return counterChange(
      keys.entity(tenantId, this.settings.kind, id),
      deltas as Record<string, number>,
      options.seenLockVersion,
      () => this.missing(id),
    );
  }

  /** A check that commits with another resource's write: the entity is still as read (10-1006). */
  unchanged(tenantId: string, id: number, seenLockVersion: number): RelatedWrite {
    return unchangedCheck(keys.entity(tenantId, this.settings.kind, id), seenLockVersion, () => this.missing(id));
  }

  /**
   * The writes that delete the entity as part of another entity's delete (a cascade): its
   * item, only as read and while no counter says it is in use, and its name claim.
   */
  removal(tenantId: string, entity: Entity<D, M>): RelatedWrite[] {
    const blocking = (Object.keys(this.settings.references) as R[]).filter(
      (ref) => this.settings.references[ref] !== 'cascade',
    );
    const { kind } = this.settings;
    const target = {
      key: keys.entity(tenantId, kind, entity.id),
      claim: keys.nameClaim(tenantId, kind, entity.data.name),
      id: entity.id,
      lockVersion: entity.lock_version,
    };
    return entityRemoval(target, blocking, () => this.missing(entity.id));
  }

  private missing(id: number): AppError {
    return this.settings.notFound ? this.settings.notFound(id) : notFound(this.settings.label, id);
  }

  private assertNotInUse(entity: Entity<D, M>): void {
    for (const ref of Object.keys(this.settings.references) as R[]) {
      const inUse = this.settings.references[ref];
      if (inUse !== 'cascade' && (entity.refs[ref] ?? 0) > 0) throw inUse(entity.id);
    }
  }

  private claimName(tenantId: string, name: string, id: number): TransactItem {
    return tx.put(keys.nameClaim(tenantId, this.settings.kind, name), { entity_id: id }, { when: is.absent('pk') });
  }

  private releaseName(tenantId: string, name: string, id: number): TransactItem {
    return tx.delete(keys.nameClaim(tenantId, this.settings.kind, name), { when: is.equal('entity_id', id) });
  }
}
