import { BatchWriteCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { deletePrefix } from '../aws/data-bucket';
import { config } from '../config';
import { keys } from '../db/keys';
import { graphOutputPrefix } from './run-storage';

/** BatchWriteItem's limit of requests per call. */
const BATCH_WRITE_ITEMS = 25;

/**
 * What a deleted graph version leaves of its runs: its run lock, its nodes' run items and
 * their output files. Called once the version's deletion committed (no run can start on a
 * version that is gone, and none was live: the deletion checks the lock); a cleanup cut
 * short leaves items under a version number that is never given again.
 */
export async function removeRunsOf(tenantId: string, datasetId: number, graphVersion: number): Promise<void> {
  const itemKeys: Record<string, unknown>[] = [{ ...keys.graphRunLock(tenantId, datasetId, graphVersion) }];
  let cursor: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page = await dynamoDocumentClient().send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.children(tenantId, 'DATASET', datasetId), ':prefix': keys.nodeRunPrefix(graphVersion) },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        ExclusiveStartKey: cursor,
      }),
    );
    itemKeys.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  for (let index = 0; index < itemKeys.length; index += BATCH_WRITE_ITEMS) {
    let requests: Record<string, { DeleteRequest: { Key: Record<string, unknown> } }[]> | undefined = {
      [config.tableName]: itemKeys.slice(index, index + BATCH_WRITE_ITEMS).map((Key) => ({ DeleteRequest: { Key } })),
    };
    while (requests && Object.keys(requests).length > 0) {
      const result = await dynamoDocumentClient().send(new BatchWriteCommand({ RequestItems: requests }));
      requests = result.UnprocessedItems as typeof requests;
    }
  }
  await deletePrefix(graphOutputPrefix(tenantId, datasetId, graphVersion));
}
