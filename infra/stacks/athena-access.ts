/**
 * The rights of trino-sql runs (docs/decisions.md, "Per-tenant roles of trino-sql runs"). Each
 * tenant has a role of its own, made by the recipe-run worker at the tenant's first run
 * (shared/engine/athena/tenant-role.ts) under the stage's role path, whose inline policy names
 * only that tenant's workgroup, Glue database and prefixes. Here, derived like every grant
 * from what the stage declares (its Athena prefixes):
 * - the permissions boundary every such role must carry: the stage-wide rights of the runs,
 *   a managed policy with a fixed name, so the worker's grant can name it in a condition;
 * - the worker's rights: make and keep roles under the path only with that boundary
 *   (`iam:PermissionsBoundary`), read them, assume them;
 * - the machine's rights: assume roles under the path, nothing of Athena, Glue or S3 itself
 *   (its `RunQuery` state runs the query with the tenant's role, infra/athena-branch.ts).
 */
import { Aws, Stack, Validations } from 'aws-cdk-lib';
import { Effect, ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type { Construct } from 'constructs';
import {
  TENANT_ATHENA_ACTIONS,
  TENANT_GLUE_ACTIONS,
  TENANT_KEY_ACTIONS,
  TENANT_READ_ACTIONS,
  TENANT_WRITE_ACTIONS,
  tenantBoundaryName,
  tenantRolePath,
} from '../../shared/engine/athena/tenant-policy';
import {
  athenaResources,
  BUCKET_LIST_ACTION,
  DATA_BUCKET_ARN_PARAMETER,
  dataBucketArnIn,
  dataBucketObjectsFinding,
  type AccessTargets,
  type AthenaPrefixes,
} from './access-targets';

/** What the worker does with the tenant roles: make one with the boundary, bring its trust and policy up to date. */
export const TENANT_ROLE_WRITE_ACTIONS = ['iam:CreateRole', 'iam:PutRolePolicy'] as const;
/** Bringing a role's trust up to date: IAM has no boundary condition for it; roles under the path only. */
export const TENANT_ROLE_TRUST_ACTION = 'iam:UpdateAssumeRolePolicy';
export const TENANT_ROLE_READ_ACTIONS = ['iam:GetRole', 'iam:GetRolePolicy'] as const;
export const ASSUME_ROLE_ACTION = 'sts:AssumeRole';
/** Where Athena writes under any tenant (the boundary's): its runs' folders and result locations. */
export const ATHENA_WRITE_KEYS = ['*/athena/*', '*/athena-results/*'] as const;

/** The stage's tenant roles (any, under its path) and the boundary each must carry, as ARNs of the stack's account. */
export function tenantRoleArns(prefixes: AthenaPrefixes): { roles: string; boundary: string } {
  const path = tenantRolePath(prefixes.workgroupPrefix);
  return {
    roles: `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role${path}*`,
    boundary: `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:policy${path}${tenantBoundaryName(prefixes.workgroupPrefix)}`,
  };
}

/** The cdk-nag finding of a statement on the stage's tenant roles (a wildcard under the path). */
function tenantRolesFinding(scope: Construct, prefixes: AthenaPrefixes): string {
  return `AwsSolutions::AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(tenantRoleArns(prefixes).roles))}]`;
}

/**
 * The boundary of the stage's tenant roles: at most what a trino-sql run of any tenant may do
 * (the stage's workgroups and databases by prefix, reads of the data bucket, writes under the
 * runs' Athena folders and result locations, the bucket key through S3). A tenant role's own
 * policy narrows it to the tenant; the boundary caps what a role the worker writes can ever get.
 */
export function tenantRoleBoundary(scope: Construct, targets: Omit<AccessTargets, 'stateMachines'>): ManagedPolicy {
  const prefixes = targets.athena!;
  const resources = athenaResources(scope, prefixes);
  const bucketArn = dataBucketArnIn(scope, targets.dataBucket);
  const policy = new ManagedPolicy(scope, 'TenantRoleBoundary', {
    managedPolicyName: tenantBoundaryName(prefixes.workgroupPrefix),
    path: tenantRolePath(prefixes.workgroupPrefix),
    description: 'Permissions boundary of the per-tenant roles of trino-sql runs',
    statements: [
      new PolicyStatement({
        sid: 'StageWorkgroups',
        effect: Effect.ALLOW,
        actions: [...TENANT_ATHENA_ACTIONS],
        resources: [resources.workgroups],
      }),
      new PolicyStatement({
        sid: 'StageDatabases',
        effect: Effect.ALLOW,
        actions: [...TENANT_GLUE_ACTIONS],
        resources: resources.glue,
      }),
      new PolicyStatement({
        sid: 'DataBucket',
        effect: Effect.ALLOW,
        actions: [BUCKET_LIST_ACTION, 's3:GetBucketLocation'],
        resources: [bucketArn],
      }),
      new PolicyStatement({
        sid: 'DataBucketReads',
        effect: Effect.ALLOW,
        actions: [...TENANT_READ_ACTIONS],
        resources: [`${bucketArn}/*`],
      }),
      new PolicyStatement({
        sid: 'AthenaWrites',
        effect: Effect.ALLOW,
        actions: [...TENANT_WRITE_ACTIONS],
        resources: ATHENA_WRITE_KEYS.map((keys) => `${bucketArn}/${keys}`),
      }),
      new PolicyStatement({
        sid: 'BucketKeyThroughS3',
        effect: Effect.ALLOW,
        actions: [...TENANT_KEY_ACTIONS],
        resources: [targets.bucketKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `s3.${Aws.REGION}.amazonaws.com` } },
      }),
    ],
  });
  const flat = (resource: string) =>
    `AwsSolutions::AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(resource))}]`;
  for (const id of [
    ...[resources.workgroups, ...resources.glue.slice(1)].map(flat),
    dataBucketObjectsFinding(''),
    ...ATHENA_WRITE_KEYS.map(
      (keys) => `AwsSolutions::AwsSolutions-IAM5[Resource::<${DATA_BUCKET_ARN_PARAMETER}>/${keys}]`,
    ),
  ])
    Validations.of(policy).acknowledge({
      id,
      reason:
        "A permissions boundary caps the per-tenant roles at the stage's trino-sql rights: workgroups and Glue databases are made at a tenant's first run (named by the stage's prefix), inputs have keys made at run time; each role's own policy names only its tenant's.",
    });
  return policy;
}

/** The machine's: assume the stage's tenant roles for its `RunQuery` state, nothing more of Athena. */
export function athenaQueryStatements(
  scope: Construct,
  targets: Omit<AccessTargets, 'stateMachines'>,
): PolicyStatement[] {
  if (targets.athena === undefined) return [];
  return [
    new PolicyStatement({
      sid: 'AssumeTenantRoles',
      effect: Effect.ALLOW,
      actions: [ASSUME_ROLE_ACTION],
      resources: [tenantRoleArns(targets.athena).roles],
    }),
  ];
}

/** The cdk-nag findings of athenaQueryStatements' wildcards (as cdk-nag flattens them). */
export function athenaQueryFindings(scope: Construct, targets: Omit<AccessTargets, 'stateMachines'>): string[] {
  return targets.athena === undefined ? [] : [tenantRolesFinding(scope, targets.athena)];
}

/**
 * The worker's (access.athena: true): make roles under the path only with the boundary, bring
 * their trust and policy up to date, read them and assume them. No Athena or Glue right of its own.
 */
export function tenantRoleStatements(scope: Construct, prefixes: AthenaPrefixes): PolicyStatement[] {
  const arns = tenantRoleArns(prefixes);
  return [
    new PolicyStatement({
      sid: 'TenantRolesWithBoundary',
      effect: Effect.ALLOW,
      actions: [...TENANT_ROLE_WRITE_ACTIONS],
      resources: [arns.roles],
      conditions: { StringEquals: { 'iam:PermissionsBoundary': arns.boundary } },
    }),
    new PolicyStatement({
      sid: 'TenantRolesTrust',
      effect: Effect.ALLOW,
      actions: [TENANT_ROLE_TRUST_ACTION, ...TENANT_ROLE_READ_ACTIONS],
      resources: [arns.roles],
    }),
    new PolicyStatement({
      sid: 'AssumeTenantRoles',
      effect: Effect.ALLOW,
      actions: [ASSUME_ROLE_ACTION],
      resources: [arns.roles],
    }),
  ];
}

/** The cdk-nag finding of tenantRoleStatements, with why. */
export function tenantRoleFinding(scope: Construct, prefixes: AthenaPrefixes): { id: string; reason: string } {
  return {
    id: tenantRolesFinding(scope, prefixes),
    reason:
      "Per-tenant roles of trino-sql runs are made at a tenant's first run under the stage's role path, only with the stage's permissions boundary; the worker names only its job's tenant's.",
  };
}

/** The environment shared/config.ts reads as `config.athenaTenantRoles`: the boundary and the roles a tenant role trusts. */
export function tenantRoleEnvironment(prefixes: AthenaPrefixes, trusted: readonly string[]): Record<string, string> {
  return { ATHENA_ROLE_BOUNDARY_ARN: tenantRoleArns(prefixes).boundary, ATHENA_ROLE_TRUSTS: trusted.join(',') };
}
