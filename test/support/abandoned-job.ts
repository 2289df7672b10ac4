/**
 * Makes a running job look abandoned, as a worker that died leaves it: its item's last heartbeat
 * an hour old, written straight to the twin's table (no route may write it). The next reader of
 * the job finds it past its inactivity limit and records it FAILED 10-1047.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../../shared/aws/clients';
import type { ItemKey } from '../../shared/db/keys';

export async function lastSignOfLifeAnHourAgo(key: ItemKey): Promise<void> {
  await dynamoDocumentClient().send(
    new UpdateCommand({
      TableName: process.env.TABLE_NAME,
      Key: key,
      UpdateExpression: 'SET #execution.heartbeat_date = :old',
      ExpressionAttributeNames: { '#execution': 'execution' },
      ExpressionAttributeValues: { ':old': new Date(Date.now() - 3_600_000).toISOString() },
    }),
  );
}
