/**
 * What every grant of infra/stacks/access.ts and infra/stacks/athena-access.ts names: the
 * resources a function may be granted, the data bucket's actions and ARN parameter, and the
 * stage's Athena resources. Both grant modules build on it; neither imports the other's basis.
 */
import { ArnFormat, CfnParameter, NestedStack, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { ScheduleNames } from './schedule-access';
/** The resources a ResourceAccess can name. */
export interface AccessTargets {
  readonly table: ITable;
  /** The customer-managed key that encrypts the table at rest. */
  readonly tableKey: IKey;
  /** Symmetric key for envelope encryption of connection secrets. */
  readonly dataKey: IKey;
  /** ECC_NIST_P256 SIGN_VERIFY key of access tokens. */
  readonly signingKey: IKey;
  /** The service's data bucket (data versions, samples, analyses). */
  readonly dataBucket: IBucket;
  /** The customer-managed key that encrypts the data bucket at rest. */
  readonly bucketKey: IKey;
  /** By job name (functions/jobs.ts); empty for workers, which never start jobs. */
  readonly stateMachines: ReadonlyMap<string, IStateMachine>;
  /** ARN of the stage's Bedrock model of the AI assistant (bedrockModelArn); undefined while it sets none. */
  readonly assistantModelArn: string | undefined;
  /** The stage's Athena names (ATHENA_WORKGROUP_PREFIX, ATHENA_DATABASE_PREFIX); undefined where it has no Athena. */
  readonly athena?: AthenaPrefixes;
  /** The stage's schedule group, scheduler role and tick function (schedule-access.ts); undefined in stacks without schedules. */
  readonly schedules?: ScheduleNames;
}

export interface AthenaPrefixes {
  readonly workgroupPrefix: string;
  readonly databasePrefix: string;
}

/** What the cancel of a run asks of Glue: the run's tables, found by name and dropped. */
export const GLUE_CLEANUP_ACTIONS = ['glue:BatchDeleteTable', 'glue:GetTables'] as const;

/** The workgroups, the catalogue, the databases and their tables a trino-sql run may use: the stage's, by prefix. */
export function athenaResources(scope: Construct, prefixes: AthenaPrefixes): { workgroups: string; glue: string[] } {
  const stack = Stack.of(scope);
  const glue = (resource: string, resourceName?: string) =>
    stack.formatArn({ service: 'glue', resource, resourceName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  // Glue names are lowercase with underscores (shared/engine/athena/query.ts athenaDatabase).
  const database = `${prefixes.databasePrefix.replace(/-/g, '_')}*`;
  return {
    workgroups: stack.formatArn({
      service: 'athena',
      resource: 'workgroup',
      resourceName: `${prefixes.workgroupPrefix}*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    }),
    glue: [glue('catalog'), glue('database', database), glue('table', `${database}/*`)],
  };
}

/**
 * Objects of the data bucket. ListObjectsV2 is authorized as s3:ListBucket on the bucket,
 * DeleteObjects per key as s3:DeleteObject; AbortMultipartUpload lets a failed large upload
 * clean up after itself. Deleting an SSE-KMS object needs no key permission, so `delete`
 * comes without one.
 */
export const BUCKET_LIST_ACTION = 's3:ListBucket';
export const BUCKET_READ_ACTIONS = ['s3:GetObject'] as const;
export const BUCKET_WRITE_ACTIONS = [
  ...BUCKET_READ_ACTIONS,
  's3:PutObject',
  's3:DeleteObject',
  's3:AbortMultipartUpload',
] as const;
export const BUCKET_DELETE_ACTIONS = ['s3:DeleteObject'] as const;

/**
 * What S3 asks of the caller's identity for SSE-KMS objects: decrypt to read (and to complete
 * multipart uploads), a data key to write; only through S3 (kms:ViaService).
 */
export const BUCKET_KEY_READ_ACTIONS = ['kms:Decrypt'] as const;
export const BUCKET_KEY_WRITE_ACTIONS = [...BUCKET_KEY_READ_ACTIONS, 'kms:GenerateDataKey'] as const;

/**
 * A nested stack receives the data bucket's ARN as this parameter rather than through CDK's
 * generated reference, whose name carries the stage and a hash: the cdk-nag finding on the
 * objects' ARN (`<DataBucketArn>/*`) then has one id that can be acknowledged.
 */
export const DATA_BUCKET_ARN_PARAMETER = 'DataBucketArn';
/** The cdk-nag finding of object actions on the data bucket's keys under `prefix` (every key for ''). */
export function dataBucketObjectsFinding(prefix: string): string {
  return `AwsSolutions::AwsSolutions-IAM5[Resource::<${DATA_BUCKET_ARN_PARAMETER}>/${prefix}*]`;
}

/** The data bucket's ARN as the parameter DATA_BUCKET_ARN_PARAMETER of the function's nested stack. */
export function dataBucketArnIn(scope: Construct, bucket: IBucket): string {
  const stack = Stack.of(scope);
  if (!NestedStack.isNestedStack(stack)) {
    throw new Error(
      `${scope.node.path}: data bucket access is granted to functions of nested stacks (route domains, jobs) only`,
    );
  }
  const existing = stack.node.tryFindChild(DATA_BUCKET_ARN_PARAMETER);
  if (existing instanceof CfnParameter) return existing.valueAsString;
  const parameter = new CfnParameter(stack, DATA_BUCKET_ARN_PARAMETER, {
    type: 'String',
    description: 'ARN of the data bucket',
  });
  stack.setParameter(DATA_BUCKET_ARN_PARAMETER, bucket.bucketArn);
  return parameter.valueAsString;
}

/** The machine of a job; a job missing from the deployed job list is a configuration error. */
