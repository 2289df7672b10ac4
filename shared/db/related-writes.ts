import { config } from '../config';
import { AppError } from '../errors/app-error';
import { REF_PREFIX } from './entity-item';
import type { ItemKey } from './keys';
import type { TransactItem } from './transactions';

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

/** A counter (attribute name `name`) equals the value `value` holds; an absent counter is zero. */
export const countCondition = (name: string, value: string, expected: number): string =>
  expected === 0 ? `(attribute_not_exists(${name}) OR ${name} = ${value})` : `${name} = ${value}`;

/** 10-1006 when the item exists but is not as read, else the entity's not-found error. */
const staleOr = (missing: () => AppError) => (current: Record<string, unknown> | undefined) =>
  current ? new AppError('10-1006') : missing();

/** See EntityStore.counters: `deltas` by counter name, in one update of the item. */
export function counterChange(
  Key: ItemKey,
  deltas: Readonly<Record<string, number>>,
  seenLockVersion: number | undefined,
  missing: () => AppError,
): RelatedWrite {
  const changes = Object.entries(deltas);
  const conditions = ['attribute_exists(pk)', ...(seenLockVersion === undefined ? [] : ['lock_version = :seen'])];
  const values: Record<string, number> = seenLockVersion === undefined ? {} : { ':seen': seenLockVersion };
  changes.forEach(([, delta], index) => {
    values[`:delta${index}`] = delta;
    if (delta >= 0) return;
    conditions.push(`#ref${index} >= :needed${index}`);
    values[`:needed${index}`] = -delta;
  });
  return {
    item: {
      Update: {
        TableName: config.tableName,
        Key,
        UpdateExpression: `ADD ${changes.map((_, index) => `#ref${index} :delta${index}`).join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: Object.fromEntries(
          changes.map(([ref], index) => [`#ref${index}`, refAttribute(ref)]),
        ),
        ExpressionAttributeValues: values,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    onConditionFailure: seenLockVersion === undefined ? missing : staleOr(missing),
  };
}

/** See EntityStore.unchanged. */
export function unchangedCheck(Key: ItemKey, seenLockVersion: number, missing: () => AppError): RelatedWrite {
  return {
    item: {
      ConditionCheck: {
        TableName: config.tableName,
        Key,
        ConditionExpression: 'lock_version = :seen',
        ExpressionAttributeValues: { ':seen': seenLockVersion },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    onConditionFailure: staleOr(missing),
  };
}

/** See EntityStore.removal: the entity item (as read, none of `blocking` counters above zero) and its name claim. */
export function entityRemoval(
  entity: { readonly key: ItemKey; readonly claim: ItemKey; readonly id: number; readonly lockVersion: number },
  blocking: readonly string[],
  missing: () => AppError,
): RelatedWrite[] {
  const TableName = config.tableName;
  const item: TransactItem = {
    Delete: {
      TableName,
      Key: entity.key,
      ConditionExpression: [
        'lock_version = :seen',
        ...blocking.map((_, index) => countCondition(`#ref${index}`, ':zero', 0)),
      ].join(' AND '),
      ...(blocking.length > 0
        ? {
            ExpressionAttributeNames: Object.fromEntries(
              blocking.map((ref, index) => [`#ref${index}`, refAttribute(ref)]),
            ),
          }
        : {}),
      ExpressionAttributeValues: { ':seen': entity.lockVersion, ...(blocking.length > 0 ? { ':zero': 0 } : {}) },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
  const claim: TransactItem = {
    Delete: {
      TableName,
      Key: entity.claim,
      ConditionExpression: 'entity_id = :id',
      ExpressionAttributeValues: { ':id': entity.id },
    },
  };
  return [
    { item, onConditionFailure: staleOr(missing) },
    { item: claim, onConditionFailure: staleOr(missing) },
  ];
}
