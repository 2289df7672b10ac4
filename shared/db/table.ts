import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
  type BatchGetCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import { expressionsOf, partitionCondition, updateExpressionsOf, type Changes, type Condition } from './expressions';
import type { ItemKey } from './keys';

/**
 * The single table's operations on items, as the repository layer uses them: reads are
 * consistent, conditional writes answer whether they held (a failed condition is an expected
 * outcome, not an exception), and every paged read pages here, once.
 */

type Item = Record<string, unknown>;

/** BatchGetItem's limit of keys per request. */
const BATCH_GET_KEYS = 100;

export async function readItem(key: ItemKey): Promise<Item | undefined> {
  const result = await dynamoDocumentClient().send(
    new GetCommand({ TableName: config.tableName, Key: key, ConsistentRead: true }),
  );
  return result.Item;
}

/** The items at these keys that exist, in no particular order: one BatchGetItem per hundred keys. */
export async function readItems(itemKeys: readonly ItemKey[]): Promise<Item[]> {
  const found: Item[] = [];
  for (let index = 0; index < itemKeys.length; index += BATCH_GET_KEYS) {
    let pending: Item[] | undefined = itemKeys.slice(index, index + BATCH_GET_KEYS).map((key) => ({ ...key }));
    while (pending && pending.length > 0) {
      const result: BatchGetCommandOutput = await dynamoDocumentClient().send(
        new BatchGetCommand({ RequestItems: { [config.tableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      found.push(...(result.Responses?.[config.tableName] ?? []));
      pending = result.UnprocessedKeys?.[config.tableName]?.Keys;
    }
  }
  return found;
}

/**
 * Every page of a Query or Scan, each item through `read`, until DynamoDB says there is no
 * more or `enough` says the items read so far suffice: the one paging loop.
 */
async function allPages<T>(
  page: (cursor: Item | undefined) => Promise<{ Items?: Item[]; LastEvaluatedKey?: Item }>,
  read: (item: Item) => T,
  enough: (found: readonly T[]) => boolean = () => false,
): Promise<T[]> {
  const found: T[] = [];
  let cursor: Item | undefined;
  do {
    const result = await page(cursor);
    for (const item of result.Items ?? []) found.push(read(item));
    cursor = enough(found) ? undefined : result.LastEvaluatedKey;
  } while (cursor);
  return found;
}

/** How a partition is read: which sort keys, in which order, how many a page, until when. */
export interface QueryOptions<T> {
  /** Only the items whose sort key begins with it. */
  readonly prefix?: string;
  readonly projection?: readonly string[];
  /** Descending sort key order. */
  readonly newestFirst?: boolean;
  /** Items a page (DynamoDB's Limit); with `enough`, a way to read only the first few. */
  readonly pageSize?: number;
  /** Stops after the page where this first holds. */
  readonly enough?: (found: readonly T[]) => boolean;
  /** Starts after this sort key (a page of a walk that goes on where the last one stopped). */
  readonly after?: string;
}

/** The items of partition `pk`, each through `read`, in sort key order (or reversed). */
export function queryItems(pk: string, options?: QueryOptions<Item>): Promise<Item[]>;
export function queryItems<T>(pk: string, options: QueryOptions<T>, read: (item: Item) => T): Promise<T[]>;
export function queryItems<T>(
  pk: string,
  options: QueryOptions<T> = {},
  read: (item: Item) => T = (item) => item as T,
): Promise<T[]> {
  const expressions = expressionsOf({
    keyCondition: partitionCondition(pk, options.prefix),
    projection: options.projection,
  });
  const page = (cursor: Item | undefined) =>
    dynamoDocumentClient().send(
      new QueryCommand({
        TableName: config.tableName,
        ...expressions,
        ConsistentRead: true,
        ScanIndexForward: !options.newestFirst,
        Limit: options.pageSize,
        ExclusiveStartKey: cursor ?? (options.after === undefined ? undefined : { pk, sk: options.after }),
      }),
    );
  return allPages(page, read, options.enough);
}

/** Every item of the table that passes `filter`: for maintenance scripts, never for requests. */
export function scanItems(filter: Condition, projection?: readonly string[]): Promise<Item[]> {
  const expressions = expressionsOf({ filter, projection });
  return allPages(
    (cursor) =>
      dynamoDocumentClient().send(
        new ScanCommand({ TableName: config.tableName, ...expressions, ExclusiveStartKey: cursor }),
      ),
    (item) => item,
  );
}

/** Runs a conditional write: false when its condition did not hold. */
async function held(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Writes the whole item (`item` holds its attributes besides the key); false when `when` did not hold. */
export function putItem(key: ItemKey, item: Item, when?: Condition): Promise<boolean> {
  return held(() =>
    dynamoDocumentClient().send(
      new PutCommand({ TableName: config.tableName, Item: { ...item, ...key }, ...expressionsOf({ condition: when }) }),
    ),
  );
}

/** Changes the item (creating it when absent, unless `when` requires it); false when `when` did not hold. */
export function updateItem(key: ItemKey, changes: Changes, when?: Condition): Promise<boolean> {
  return held(() =>
    dynamoDocumentClient().send(
      new UpdateCommand({ TableName: config.tableName, Key: key, ...updateExpressionsOf(changes, when) }),
    ),
  );
}

/** Deletes the item; false when `when` did not hold. */
export function deleteItem(key: ItemKey, when?: Condition): Promise<boolean> {
  return held(() =>
    dynamoDocumentClient().send(
      new DeleteCommand({ TableName: config.tableName, Key: key, ...expressionsOf({ condition: when }) }),
    ),
  );
}

/** Adds `amount` to a number attribute atomically (absent counts as zero) and answers its new value. */
export async function addToCounter(key: ItemKey, attribute: string, amount: number): Promise<number> {
  const result = await dynamoDocumentClient().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: key,
      ...updateExpressionsOf({ add: { [attribute]: amount } }),
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.[attribute]);
}
