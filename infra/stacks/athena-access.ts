/**
 * The rights of a state machine that runs Athena queries (infra/athena-branch.ts): Athena runs
 * a query with its caller's rights, here the machine's role, so the role gets what a trino-sql
 * node's CTAS needs and nothing more, derived like every grant from what the stage declares
 * (its Athena prefixes, infra/stacks/access.ts athenaResources).
 */
import { Aws, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type { Construct } from 'constructs';
import {
  athenaResources,
  BUCKET_KEY_WRITE_ACTIONS,
  BUCKET_LIST_ACTION,
  BUCKET_READ_ACTIONS,
  DATA_BUCKET_ARN_PARAMETER,
  dataBucketArnIn,
  dataBucketObjectsFinding,
  type AccessTargets,
} from './access';

/** What Step Functions' `athena:startQueryExecution.sync` calls (infra/athena-branch.ts): start, follow, stop. */
export const ATHENA_QUERY_ACTIONS = [
  'athena:GetQueryExecution',
  'athena:StartQueryExecution',
  'athena:StopQueryExecution',
] as const;
/** Athena reads the catalogue with its caller's rights, and a CTAS registers its table. */
export const GLUE_QUERY_ACTIONS = ['glue:CreateTable', 'glue:GetDatabase', 'glue:GetTable'] as const;
/** What Athena writes with its caller's rights: a CTAS's files, the workgroup's result files. */
export const ATHENA_WRITE_ACTIONS = ['s3:AbortMultipartUpload', 's3:ListMultipartUploadParts', 's3:PutObject'] as const;
/**
 * Where a query writes: the run's folder under a node's output (`…/athena/<job>/`,
 * shared/engine/athena/run-prefix.ts athenaRunPrefix) and the tenant's result location.
 */
export const ATHENA_WRITE_KEYS = ['*/athena/*', '*/athena-results/*'] as const;

/**
 * The statements of a state machine that runs Athena queries (a worker with athenaQueries):
 * Athena runs them with the machine role's rights, so that role may start, follow and stop
 * queries in the stage's workgroups only, read the catalogue and create a CTAS table in the
 * stage's databases, read the data bucket (inputs, manifests) and write only under the run
 * folders and the result locations, with the bucket's key through S3. None where the stage has no Athena.
 */
export function athenaQueryStatements(
  scope: Construct,
  targets: Omit<AccessTargets, 'stateMachines'>,
): PolicyStatement[] {
  if (targets.athena === undefined) return [];
  const resources = athenaResources(scope, targets.athena);
  const bucketArn = dataBucketArnIn(scope, targets.dataBucket);
  return [
    new PolicyStatement({
      sid: 'AthenaQueries',
      effect: Effect.ALLOW,
      actions: [...ATHENA_QUERY_ACTIONS],
      resources: [resources.workgroups],
    }),
    new PolicyStatement({
      sid: 'AthenaQueryCatalogue',
      effect: Effect.ALLOW,
      actions: [...GLUE_QUERY_ACTIONS],
      resources: resources.glue,
    }),
    new PolicyStatement({
      sid: 'AthenaQueryBucket',
      effect: Effect.ALLOW,
      actions: [BUCKET_LIST_ACTION, 's3:GetBucketLocation'],
      resources: [bucketArn],
    }),
    new PolicyStatement({
      sid: 'AthenaQueryReads',
      effect: Effect.ALLOW,
      actions: [...BUCKET_READ_ACTIONS],
      resources: [`${bucketArn}/*`],
    }),
    new PolicyStatement({
      sid: 'AthenaQueryWrites',
      effect: Effect.ALLOW,
      actions: [...ATHENA_WRITE_ACTIONS],
      resources: ATHENA_WRITE_KEYS.map((keys) => `${bucketArn}/${keys}`),
    }),
    new PolicyStatement({
      sid: 'AthenaQueryBucketKey',
      effect: Effect.ALLOW,
      actions: [...BUCKET_KEY_WRITE_ACTIONS],
      resources: [targets.bucketKey.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `s3.${Aws.REGION}.amazonaws.com` } },
    }),
  ];
}

/** The cdk-nag findings of athenaQueryStatements' wildcards (as cdk-nag flattens them). */
export function athenaQueryFindings(scope: Construct, targets: Omit<AccessTargets, 'stateMachines'>): string[] {
  if (targets.athena === undefined) return [];
  const resources = athenaResources(scope, targets.athena);
  const flat = (resource: string) =>
    `AwsSolutions::AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(resource))}]`;
  return [
    ...[resources.workgroups, ...resources.glue.slice(1)].map(flat),
    dataBucketObjectsFinding(''),
    ...ATHENA_WRITE_KEYS.map(
      (keys) => `AwsSolutions::AwsSolutions-IAM5[Resource::<${DATA_BUCKET_ARN_PARAMETER}>/${keys}]`,
    ),
  ];
}
