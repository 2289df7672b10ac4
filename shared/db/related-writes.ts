import { type AppError, versionConflict } from '../errors/app-error';
import { REF_PREFIX } from './entity-item';
import { allOf, is } from './expressions';
import type { ItemKey } from './keys';
import { tx, type TransactItem } from './transactions';

/**
 * The writes one entity's store contributes to another resource's transaction (entity-store.ts
 * builds them with its keys and its not-found error): counter changes, checks, removals.
 */

/** A write on another item that must commit together with this store's write. */
export interface RelatedWrite {
  readonly item: TransactItem;
  /** The error to raise when this write's condition does not hold, given the item as it was. */
  readonly onConditionFailure: (current: Record<string, unknown> | undefined) => AppError;
}

/** Uses a delete takes with it: their removal writes, and how many uses of each counter they remove. */
export interface Cascade<R extends string> {
  readonly writes: readonly RelatedWrite[];
  readonly removed: Partial<Record<R, number>>;
}

/** The item attribute of in-use counter `ref`. */
export const refAttribute = (ref: string): string => `${REF_PREFIX}${ref}`;

/** 10-1006 when the item exists but is not as read, else the entity's not-found error. */
const staleOr = (missing: () => AppError) => (current: Record<string, unknown> | undefined) =>
  current ? versionConflict() : missing();

/** See EntityStore.counters: `deltas` by counter name, in one update of the item. */
export function counterChange(
  key: ItemKey,
  deltas: Readonly<Record<string, number>>,
  seenLockVersion: number | undefined,
  missing: () => AppError,
): RelatedWrite {
  const changes = Object.entries(deltas);
  const when = allOf(
    is.present('pk'),
    ...(seenLockVersion === undefined ? [] : [is.equal('lock_version', seenLockVersion)]),
    // A counter going down must hold at least what it loses.
    ...changes.filter(([, delta]) => delta < 0).map(([ref, delta]) => is.atLeast(refAttribute(ref), -delta)),
  );
  const add = Object.fromEntries(changes.map(([ref, delta]) => [refAttribute(ref), delta]));
  return {
    item: tx.update(key, { add }, { when, returnOld: true }),
    onConditionFailure: seenLockVersion === undefined ? missing : staleOr(missing),
  };
}

/** See EntityStore.unchanged. */
export function unchangedCheck(key: ItemKey, seenLockVersion: number, missing: () => AppError): RelatedWrite {
  return {
    item: tx.check(key, is.equal('lock_version', seenLockVersion), { returnOld: true }),
    onConditionFailure: staleOr(missing),
  };
}

/** See EntityStore.removal: the entity item (as read, none of `blocking` counters above zero) and its name claim. */
export function entityRemoval(
  entity: { readonly key: ItemKey; readonly claim: ItemKey; readonly id: number; readonly lockVersion: number },
  blocking: readonly string[],
  missing: () => AppError,
): RelatedWrite[] {
  const unused = blocking.map((ref) => is.count(refAttribute(ref), 0));
  const item = tx.delete(entity.key, {
    when: allOf(is.equal('lock_version', entity.lockVersion), ...unused),
    returnOld: true,
  });
  const claim = tx.delete(entity.claim, { when: is.equal('entity_id', entity.id) });
  return [
    { item, onConditionFailure: staleOr(missing) },
    { item: claim, onConditionFailure: staleOr(missing) },
  ];
}
