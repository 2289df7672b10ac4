/**
 * What a synthesized function may do to one resource, read from its role's statements
 * (synth.ts `grants`): the views the infra tests compare with what a route or job declares.
 */
import { grants, sameTarget, type FunctionInfo, type Target } from './synth';

/** The function itself as a target (for grants that name it, e.g. a state machine's invoke). */
export const asTarget = (fn: FunctionInfo): Target => ({
  view: fn.view,
  logicalId: fn.logicalId,
  attribute: undefined,
});

/** Actions granted on a resource (a key, the bucket, a state machine), sorted. */
export const actionsOnTarget = (fn: FunctionInfo, target: Target): string[] =>
  grants(fn)
    .filter((grant) => sameTarget(grant.target, target))
    .map((grant) => grant.action)
    .sort();

/** Actions granted on a bucket's objects (`<arn>/*`), sorted. */
export const actionsOnObjects = (fn: FunctionInfo, bucket: Target): string[] =>
  grants(fn)
    .filter((grant) => sameTarget(grant.objectsOf, bucket))
    .map((grant) => grant.action)
    .sort();

/** The actions of each kind of table access, spelled out independently of infra/stacks/access.ts. */
export const DYNAMODB_READ = ['dynamodb:GetItem', 'dynamodb:Query'];
export const DYNAMODB_WRITE = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

/** What each kind of data bucket access amounts to, spelled out independently of infra/stacks/access.ts. */
export const BUCKET_GRANTS = {
  none: { bucket: [], objects: [], key: [] },
  read: { bucket: ['s3:ListBucket'], objects: ['s3:GetObject'], key: ['kms:Decrypt'] },
  write: {
    bucket: ['s3:ListBucket'],
    objects: ['s3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject', 's3:PutObject'],
    key: ['kms:Decrypt', 'kms:GenerateDataKey'],
  },
  delete: { bucket: ['s3:ListBucket'], objects: ['s3:DeleteObject'], key: [] },
} as const satisfies Record<string, { bucket: readonly string[]; objects: readonly string[]; key: readonly string[] }>;
