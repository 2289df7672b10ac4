import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';

/**
 * SDK clients, created on first use and reused across invocations of a warm function.
 * Endpoints come from the SDK's own configuration (AWS_ENDPOINT_URL_<SERVICE>), which is how
 * the local twin points the very same code at its stand-ins.
 */
let dynamo: DynamoDBDocumentClient | undefined;
let kms: KMSClient | undefined;

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  dynamo ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return dynamo;
}

export function kmsClient(): KMSClient {
  kms ??= new KMSClient({});
  return kms;
}
