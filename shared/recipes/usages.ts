import { QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import { parseItem } from '../db/items';
import { keys } from '../db/keys';
import { StoredRecipeUsage } from './items';

/**
 * Where recipe versions are used: dataset nodes record each use beside the version
 * (keys.versionUse, written by datasets), so the uses of one version are one Query over its
 * recipe's item collection, in dataset, graph version and node order.
 */
export const recipeUsages = {
  async list(tenantId: string, recipeId: number, versionNumber: number): Promise<StoredRecipeUsage[]> {
    const usages: StoredRecipeUsage[] = [];
    let cursor: QueryCommandOutput['LastEvaluatedKey'];
    do {
      const page = await dynamoDocumentClient().send(
        new QueryCommand({
          TableName: config.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': keys.children(tenantId, 'RECIPE', recipeId),
            ':prefix': keys.versionUsePrefix(versionNumber),
          },
          ConsistentRead: true,
          ExclusiveStartKey: cursor,
        }),
      );
      for (const item of page.Items ?? []) usages.push(parseItem(StoredRecipeUsage, 'RECIPE_VERSION_USAGE', item));
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    return usages;
  },
};
