/**
 * Least privilege: the IAM statements a function gets are derived from its declared
 * ResourceAccess (route table or worker list) and nothing else. A function with empty access
 * gets no table, bucket, KMS or Step Functions permission at all.
 */
import { Arn, ArnFormat, Aws, CfnParameter, NestedStack, Stack, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type { Construct } from 'constructs';
import type { ResourceAccess, StartableJob } from '../../shared/resource-access';
import { acknowledgeScheduleAccess, scheduleStatements } from './schedule-access';
import {
  athenaResources,
  BUCKET_DELETE_ACTIONS,
  BUCKET_KEY_READ_ACTIONS,
  BUCKET_KEY_WRITE_ACTIONS,
  BUCKET_LIST_ACTION,
  BUCKET_READ_ACTIONS,
  BUCKET_WRITE_ACTIONS,
  dataBucketArnIn,
  dataBucketObjectsFinding,
  GLUE_CLEANUP_ACTIONS,
  type AccessTargets,
} from './access-targets';
import { tenantRoleFinding, tenantRoleStatements } from './athena-access';
import { pascalCase } from './stage';

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

export const START_JOB_ACTION = 'states:StartExecution';
/** What cancelling a job needs (shared/jobs/cancel.ts): on the job's execution only. */
export const STOP_JOB_ACTION = 'states:StopExecution';

/**
 * Every execution of `machine`, `arn:...:execution:<machine name>:*`: executions are named after
 * their job at run time, so the grant names the machine, not the execution.
 */
export function executionsOf(scope: Construct, job: StartableJob, machine: IStateMachine): string {
  // The machine is the stage's own: its partition, region and account are the stack's.
  const { resourceName } = Arn.split(machineArnIn(scope, job, machine), ArnFormat.COLON_RESOURCE_NAME);
  return Stack.of(scope).formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: `${resourceName}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/** The cdk-nag finding of a wildcard on every execution of a machine (flattened as cdk-nag flattens it). */
function executionsFinding(scope: Construct, job: StartableJob, machine: IStateMachine): string {
  return `AwsSolutions::AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(executionsOf(scope, job, machine)))}]`;
}

/**
 * A job machine's ARN as a parameter of the function's nested stack (`<Job>StateMachineArn`),
 * as the data bucket's is: the grant then names a reference of its own stack, and its cdk-nag
 * finding has an id known when it is acknowledged.
 */
function machineArnIn(scope: Construct, job: StartableJob, machine: IStateMachine): string {
  const stack = Stack.of(scope);
  if (!NestedStack.isNestedStack(stack)) return machine.stateMachineArn;
  const name = `${pascalCase(job.name)}StateMachineArn`;
  const existing = stack.node.tryFindChild(name);
  if (existing instanceof CfnParameter) return existing.valueAsString;
  const parameter = new CfnParameter(stack, name, {
    type: 'String',
    description: `ARN of the ${job.name} job's state machine`,
  });
  stack.setParameter(name, machine.stateMachineArn);
  return parameter.valueAsString;
}

/** What the Converse API asks of the caller for a model (ConverseStream would also need InvokeModelWithResponseStream). */
export const ASSISTANT_MODEL_ACTION = 'bedrock:InvokeModel';

/**
 * The ARN of a Bedrock model id as ASSISTANT_BEDROCK_MODEL_ID gives it: an ARN as it is (an
 * inference profile's, a provisioned model's), a foundation model id as that model of the
 * stack's region; undefined for none.
 */
export function bedrockModelArn(modelId: string | undefined): string | undefined {
  if (modelId === undefined || modelId === '') return undefined;
  if (modelId.startsWith('arn:')) return modelId;
  return `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${modelId}`;
}

export const DATA_KEY_ACTIONS = { encrypt: 'kms:GenerateDataKey', decrypt: 'kms:Decrypt' } as const;
export const SIGNING_KEY_ACTIONS = { sign: 'kms:Sign', verify: 'kms:GetPublicKey' } as const;

/**
 * Every sealed secret is bound to its tenant through the KMS encryption context
 * (shared/connections/store.ts secretContext); a data-key call without one is refused.
 */
export const DATA_KEY_REQUIRED_CONTEXT = 'tenant_id';

/** Access tokens are ES256 JWTs. */
export const SIGNING_ALGORITHM = 'ECDSA_SHA_256';

/** Grants the role what `access` declares, and acknowledges the cdk-nag findings that implies. */
export function grantAccess(role: Role, access: ResourceAccess, targets: AccessTargets): void {
  for (const statement of accessStatements(role, access, targets)) role.addToPrincipalPolicy(statement);
  if (access.dataBucket !== undefined) {
    Validations.of(role).acknowledge({
      id: dataBucketObjectsFinding(access.dataBucketPrefix ?? ''),
      reason:
        "Object actions on the service's own data bucket: object keys are per tenant and data version, created at run time; the tenant is enforced by the handler, which builds every key from the caller's tenant.",
    });
  }
  if (access.schedules && targets.schedules !== undefined)
    acknowledgeScheduleAccess(role, targets.schedules, access.schedules);
  if (access.athena === 'cleanup' && targets.athena !== undefined) {
    for (const resource of athenaResources(role, targets.athena).glue.slice(1))
      Validations.of(role).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(role).resolve(resource))}]`,
        reason:
          "trino-sql runs: the stage's per-tenant Glue databases are made at a tenant's first run, so they are named by the stage's prefix; the handler names only the caller's tenant's.",
      });
  } else if (access.athena && targets.athena !== undefined) {
    Validations.of(role).acknowledge(tenantRoleFinding(role, targets.athena));
  }
  for (const name of [...new Set((access.stopsJobs ?? []).map((job) => job.name))]) {
    Validations.of(role).acknowledge({
      id: executionsFinding(role, { name }, stateMachineOf(targets, { name })),
      reason:
        'StopExecution on the executions of one job machine: an execution is named after its job at run time; the handler stops only the execution of a job it read from the caller’s tenant.',
    });
  }
}

function accessStatements(scope: Construct, access: ResourceAccess, targets: AccessTargets): PolicyStatement[] {
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
  if (access.dataBucket !== undefined)
    statements.push(...dataBucketStatements(scope, access.dataBucket, targets, access.dataBucketPrefix ?? ''));
  for (const name of [...new Set((access.startsJobs ?? []).map((job) => job.name))].sort()) {
    statements.push(
      new PolicyStatement({
        sid: `StartJob${pascalCase(name)}`,
        effect: Effect.ALLOW,
        actions: [START_JOB_ACTION],
        resources: [stateMachineOf(targets, { name }).stateMachineArn],
      }),
    );
  }
  for (const name of [...new Set((access.stopsJobs ?? []).map((job) => job.name))].sort()) {
    statements.push(
      new PolicyStatement({
        sid: `StopJob${pascalCase(name)}`,
        effect: Effect.ALLOW,
        actions: [STOP_JOB_ACTION],
        resources: [executionsOf(scope, { name }, stateMachineOf(targets, { name }))],
      }),
    );
  }
  if (access.athena === 'cleanup' && targets.athena !== undefined) {
    statements.push(
      new PolicyStatement({
        sid: 'GlueRunTables',
        effect: Effect.ALLOW,
        actions: [...GLUE_CLEANUP_ACTIONS],
        resources: athenaResources(scope, targets.athena).glue,
      }),
    );
  } else if (access.athena && targets.athena !== undefined) {
    // Its Athena and Glue calls go through the tenant's role (infra/stacks/athena-access.ts).
    statements.push(...tenantRoleStatements(scope, targets.athena));
  }
  if (access.schedules && targets.schedules !== undefined)
    statements.push(...scheduleStatements(scope, targets.schedules, access.schedules));
  if (access.assistantModel && targets.assistantModelArn !== undefined) {
    statements.push(
      new PolicyStatement({
        sid: 'AssistantModelInvoke',
        effect: Effect.ALLOW,
        actions: [ASSISTANT_MODEL_ACTION],
        resources: [targets.assistantModelArn],
      }),
    );
  }
  return statements;
}

function dataBucketStatements(
  scope: Construct,
  use: NonNullable<ResourceAccess['dataBucket']>,
  targets: AccessTargets,
  prefix: string,
): PolicyStatement[] {
  const bucketArn = dataBucketArnIn(scope, targets.dataBucket);
  const list = new PolicyStatement({
    sid: 'DataBucketList',
    effect: Effect.ALLOW,
    actions: [BUCKET_LIST_ACTION],
    resources: [bucketArn],
  });
  const objects = (sid: string, actions: readonly string[]): PolicyStatement =>
    new PolicyStatement({ sid, effect: Effect.ALLOW, actions: [...actions], resources: [`${bucketArn}/${prefix}*`] });
  const bucketKey = (actions: readonly string[]): PolicyStatement =>
    new PolicyStatement({
      sid: 'BucketKeyThroughS3',
      effect: Effect.ALLOW,
      actions: [...actions],
      resources: [targets.bucketKey.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `s3.${Aws.REGION}.amazonaws.com` } },
    });
  switch (use) {
    case 'read':
      return [list, objects('DataBucketObjectsRead', BUCKET_READ_ACTIONS), bucketKey(BUCKET_KEY_READ_ACTIONS)];
    case 'write':
      return [list, objects('DataBucketObjectsReadWrite', BUCKET_WRITE_ACTIONS), bucketKey(BUCKET_KEY_WRITE_ACTIONS)];
    case 'delete':
      return [list, objects('DataBucketObjectsDelete', BUCKET_DELETE_ACTIONS)];
  }
}

export function stateMachineOf(targets: AccessTargets, job: StartableJob): IStateMachine {
  const machine = targets.stateMachines.get(job.name);
  if (machine === undefined) {
    const known = [...targets.stateMachines.keys()].join(', ') || 'none';
    throw new Error(`no state machine for job "${job.name}" (is it in functions/jobs.ts?); state machines: ${known}`);
  }
  return machine;
}
