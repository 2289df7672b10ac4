/** The single table's key schema, shared by the CDK stack and the local twin. */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB TTL removes expired items (idempotency records). */
  timeToLiveAttribute: 'expires_at',
} as const;
