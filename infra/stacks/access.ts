/**
 * Least privilege: the IAM statements a function gets are derived from its declared
 * ResourceAccess (route table or worker list) and nothing else. A function with empty access
 * gets no table or KMS permission at all.
 */
import { Aws } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ResourceAccess } from '../../shared/http/route';

/** The resources a ResourceAccess can name. */
export interface AccessTargets {
  readonly table: ITable;
  /** The customer-managed key that encrypts the table at rest. */
  readonly tableKey: IKey;
  /** Symmetric key for envelope encryption of connection secrets. */
  readonly dataKey: IKey;
  /** ECC_NIST_P256 SIGN_VERIFY key of access tokens. */
  readonly signingKey: IKey;
}

/** Item reads; TransactGetItems is authorized as GetItem. */
export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/** Item writes; TransactWriteItems is authorized per item as Put/Update/Delete/ConditionCheckItem. */
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
] as const;

/**
 * What DynamoDB asks of the caller's identity for a table encrypted with a customer-managed
 * key (the same sets CDK's Table.grant* use), allowed only through DynamoDB (kms:ViaService):
 * the function cannot use the table key directly.
 */
export const TABLE_KEY_READ_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey'] as const;
export const TABLE_KEY_WRITE_ACTIONS = [
  ...TABLE_KEY_READ_ACTIONS,
  'kms:Encrypt',
  'kms:ReEncryptFrom',
  'kms:ReEncryptTo',
  'kms:GenerateDataKey',
  'kms:GenerateDataKeyWithoutPlaintext',
] as const;

export const DATA_KEY_ACTIONS = { encrypt: 'kms:GenerateDataKey', decrypt: 'kms:Decrypt' } as const;
export const SIGNING_KEY_ACTIONS = { sign: 'kms:Sign', verify: 'kms:GetPublicKey' } as const;

/**
 * Every sealed secret is bound to its tenant through the KMS encryption context
 * (shared/connections/store.ts secretContext); a data-key call without one is refused.
 */
export const DATA_KEY_REQUIRED_CONTEXT = 'tenant_id';

/** Access tokens are ES256 JWTs. */
export const SIGNING_ALGORITHM = 'ECDSA_SHA_256';

export function accessStatements(access: ResourceAccess, targets: AccessTargets): PolicyStatement[] {
  const statements: PolicyStatement[] = [];
  if (access.table !== undefined) {
    const write = access.table === 'write';
    statements.push(
      new PolicyStatement({
        sid: write ? 'TableReadWrite' : 'TableRead',
        effect: Effect.ALLOW,
        actions: write ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] : [...TABLE_READ_ACTIONS],
        resources: [targets.table.tableArn],
      }),
      new PolicyStatement({
        sid: 'TableKeyThroughDynamoDB',
        effect: Effect.ALLOW,
        actions: write ? [...TABLE_KEY_WRITE_ACTIONS] : [...TABLE_KEY_READ_ACTIONS],
        resources: [targets.tableKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${Aws.REGION}.amazonaws.com` } },
      }),
    );
  }
  const dataKeyUses = [...new Set(access.dataKey ?? [])].sort();
  if (dataKeyUses.length > 0) {
    statements.push(
      new PolicyStatement({
        sid: 'DataKeyEnvelope',
        effect: Effect.ALLOW,
        actions: dataKeyUses.map((use) => DATA_KEY_ACTIONS[use]),
        resources: [targets.dataKey.keyArn],
        conditions: { Null: { [`kms:EncryptionContext:${DATA_KEY_REQUIRED_CONTEXT}`]: 'false' } },
      }),
    );
  }
  if (access.signingKey === 'sign') {
    statements.push(
      new PolicyStatement({
        sid: 'SigningKeySign',
        effect: Effect.ALLOW,
        actions: [SIGNING_KEY_ACTIONS.sign],
        resources: [targets.signingKey.keyArn],
        conditions: { StringEquals: { 'kms:SigningAlgorithm': SIGNING_ALGORITHM } },
      }),
    );
  } else if (access.signingKey === 'verify') {
    statements.push(
      new PolicyStatement({
        sid: 'SigningKeyPublicKey',
        effect: Effect.ALLOW,
        actions: [SIGNING_KEY_ACTIONS.verify],
        resources: [targets.signingKey.keyArn],
      }),
    );
  }
  return statements;
}
