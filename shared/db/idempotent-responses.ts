import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import { validationError, type AppError } from '../errors/app-error';
import type { IdempotentRequest } from './entity-store';
import { keys, type EntityKind } from './keys';

const TTL_SECONDS = 24 * 60 * 60;

/**
 * Idempotency-Key for operations whose effect is not one entity (a batch of imports): the
 * first request claims the key and stores its answer; a retry with the same key and body gets
 * that answer again instead of doing the work twice. A retry while the first is still running
 * is refused with `busy`; a key reused with another body is 10-1400. A request that fails
 * releases its claim, so it can be retried.
 */
export async function idempotentResponse<T>(
  tenantId: string,
  operation: EntityKind,
  request: IdempotentRequest | undefined,
  busy: () => AppError,
  run: () => Promise<T>,
): Promise<{ readonly body: T; readonly replayed: boolean }> {
  if (!request) return { body: await run(), replayed: false };
  const Key = keys.idempotency(tenantId, operation, request.key);
  const now = Math.floor(Date.now() / 1000);
  const client = dynamoDocumentClient();
  try {
    await client.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...Key, fingerprint: request.fingerprint, state: 'RUNNING', expires_at: now + TTL_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const earlier = (await client.send(new GetCommand({ TableName: config.tableName, Key, ConsistentRead: true }))).Item;
    if (!earlier) throw busy();
    if (earlier.fingerprint !== request.fingerprint) throw validationError({ 'Idempotency-Key': 'already used with a different request' });
    if (earlier.state !== 'DONE') throw busy();
    return { body: earlier.body as T, replayed: true };
  }
  let body: T;
  try {
    body = await run();
  } catch (error) {
    await client.send(new DeleteCommand({ TableName: config.tableName, Key }));
    throw error;
  }
  await client.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key,
      UpdateExpression: 'SET #state = :done, #body = :body',
      ExpressionAttributeNames: { '#state': 'state', '#body': 'body' },
      ExpressionAttributeValues: { ':done': 'DONE', ':body': body },
    }),
  );
  return { body, replayed: false };
}
