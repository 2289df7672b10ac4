import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import type { ItemKey } from './keys';
import { queryItems } from './table';

/**
 * Removal of whole item collections (a deleted recipe's versions, a deleted table's versions,
 * a deleted graph version's runs): not conditional, so only for items nothing may reach any
 * more once the owner's deletion committed.
 */

/** BatchWriteItem's limit of requests per call. */
const BATCH_WRITE_ITEMS = 25;
/** Rounds of retrying what DynamoDB leaves unprocessed (throttling) before giving up. */
const UNPROCESSED_ROUNDS = 8;

/** The keys of every item of the partition `pk` (whose sort key begins with `prefix`, when given), read consistently. */
export async function keysUnder(pk: string, prefix?: string): Promise<ItemKey[]> {
  const items = await queryItems(pk, { prefix, projection: ['pk', 'sk'] });
  return items.map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
}

/** Deletes the items at these keys, 25 per BatchWriteItem, trying again (with a growing pause) what comes back unprocessed. */
export async function deleteItems(itemKeys: readonly ItemKey[]): Promise<void> {
  for (let index = 0; index < itemKeys.length; index += BATCH_WRITE_ITEMS) {
    let requests: Record<string, { DeleteRequest: { Key: Record<string, unknown> } }[]> | undefined = {
      [config.tableName]: itemKeys
        .slice(index, index + BATCH_WRITE_ITEMS)
        .map((key) => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } })),
    };
    for (let round = 1; requests && Object.keys(requests).length > 0; round += 1) {
      if (round > UNPROCESSED_ROUNDS)
        throw new Error(
          `${Object.values(requests).flat().length} deletions still unprocessed after ${UNPROCESSED_ROUNDS} rounds`,
        );
      if (round > 1) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** round));
      const result = await dynamoDocumentClient().send(new BatchWriteCommand({ RequestItems: requests }));
      requests = result.UnprocessedItems as typeof requests;
    }
  }
}
