/**
 * The per-tenant role of trino-sql runs, by name and by policy (docs/decisions.md, "Per-tenant
 * roles of trino-sql runs"): the worker makes it at the tenant's first run
 * (tenant-role.ts), the machine's `RunQuery` state runs the query with it, and CDK bounds it
 * (infra/stacks/athena-access.ts). Pure names and documents, so both sides derive the same
 * ones; nothing here calls AWS.
 */
import { createHash } from 'node:crypto';

/** What a run asks of Athena with the tenant's role: its workgroup made and kept, its queries started, followed and stopped. */
export const TENANT_ATHENA_ACTIONS = [
  'athena:CreateWorkGroup',
  'athena:GetQueryExecution',
  'athena:GetWorkGroup',
  'athena:StartQueryExecution',
  'athena:StopQueryExecution',
  'athena:TagResource',
  'athena:UpdateWorkGroup',
] as const;

/** What a run (and Athena on its behalf: it reads the catalogue and registers a CTAS's table with the caller's rights) asks of Glue. */
export const TENANT_GLUE_ACTIONS = [
  'glue:BatchDeleteTable',
  'glue:CreateDatabase',
  'glue:CreateTable',
  'glue:DeleteTable',
  'glue:GetDatabase',
  'glue:GetTable',
  'glue:TagResource',
] as const;

/** What Athena reads with its caller's rights: the manifests and the files they list. */
export const TENANT_READ_ACTIONS = ['s3:GetObject'] as const;
/** What Athena writes with its caller's rights: a CTAS's files, the workgroup's result files. */
export const TENANT_WRITE_ACTIONS = ['s3:AbortMultipartUpload', 's3:ListMultipartUploadParts', 's3:PutObject'] as const;
/** The bucket key, through S3 only: objects Athena writes take the bucket's default SSE-KMS. */
export const TENANT_KEY_ACTIONS = ['kms:Decrypt', 'kms:GenerateDataKey'] as const;
/**
 * Where a query writes, under the tenant's prefix: the run's folder under a node's output
 * (`…/athena/<job>/`, run-prefix.ts athenaRunPrefix) and the workgroup's result location.
 */
export const TENANT_WRITE_KEYS = ['*/athena/*', 'athena-results/*'] as const;

/** The name of the tenant role's one inline policy. */
export const TENANT_POLICY_NAME = 'tenant-scope';

/** IAM's longest role name. */
const ROLE_NAME_MAX = 64;

/** The stage's tenant roles' path: the machine and the worker may assume, and the worker make, roles under it only. */
export function tenantRolePath(workgroupPrefix: string): string {
  return `/${workgroupPrefix}tenant-roles/`;
}

/**
 * The tenant's role name: the stage's workgroup prefix and the tenant id, which names it
 * uniquely in the account; a tenant id too long for IAM's 64 characters is cut and a hash of
 * the whole id appended, so two tenants never share a role.
 */
export function tenantRoleName(workgroupPrefix: string, tenantId: string): string {
  const name = `${workgroupPrefix}${tenantId}`;
  if (name.length <= ROLE_NAME_MAX) return name;
  const hash = createHash('sha256').update(tenantId).digest('hex').slice(0, 8);
  return `${name.slice(0, ROLE_NAME_MAX - hash.length - 1)}-${hash}`;
}

/** The managed policy every tenant role must carry as its permissions boundary: the stage-wide rights of trino-sql runs. */
export function tenantBoundaryName(workgroupPrefix: string): string {
  return `${workgroupPrefix}tenant-role-boundary`;
}

/** An IAM policy document as IAM reads it. */
export interface PolicyDocument {
  readonly Version: '2012-10-17';
  readonly Statement: readonly PolicyStatementJson[];
}

export interface PolicyStatementJson {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Action?: string | readonly string[];
  readonly Resource?: string | readonly string[];
  readonly Principal?: { readonly AWS?: string | readonly string[]; readonly Service?: string | readonly string[] };
  readonly Condition?: Readonly<Record<string, Readonly<Record<string, string | readonly string[]>>>>;
}

/** Where a tenant's role reaches: its account and region, the data bucket, and the tenant's names. */
export interface TenantScope {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  readonly bucket: string;
  readonly tenantId: string;
  readonly workgroup: string;
  readonly database: string;
}

/**
 * The tenant role's inline policy: its one workgroup, its one Glue database and the tables in
 * it, reads under `<tenant>/`, writes only under its runs' Athena folders and its result
 * location, and the bucket key through S3 (the boundary names the one key; here any key of
 * the account, which the worker's environment does not name).
 */
export function tenantRolePolicy(scope: TenantScope): PolicyDocument {
  const arn = (service: string, resource: string, region = scope.region, account = scope.account) =>
    `arn:${scope.partition}:${service}:${region}:${account}:${resource}`;
  const bucket = `arn:${scope.partition}:s3:::${scope.bucket}`;
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'TenantWorkgroup',
        Effect: 'Allow',
        Action: [...TENANT_ATHENA_ACTIONS],
        Resource: arn('athena', `workgroup/${scope.workgroup}`),
      },
      {
        Sid: 'TenantDatabase',
        Effect: 'Allow',
        Action: [...TENANT_GLUE_ACTIONS],
        Resource: [
          arn('glue', 'catalog'),
          arn('glue', `database/${scope.database}`),
          arn('glue', `table/${scope.database}/*`),
        ],
      },
      {
        Sid: 'TenantPrefixList',
        Effect: 'Allow',
        Action: ['s3:ListBucket'],
        Resource: bucket,
        Condition: { StringLike: { 's3:prefix': [`${scope.tenantId}/*`] } },
      },
      { Sid: 'BucketLocation', Effect: 'Allow', Action: ['s3:GetBucketLocation'], Resource: bucket },
      {
        Sid: 'TenantReads',
        Effect: 'Allow',
        Action: [...TENANT_READ_ACTIONS],
        Resource: `${bucket}/${scope.tenantId}/*`,
      },
      {
        Sid: 'TenantAthenaWrites',
        Effect: 'Allow',
        Action: [...TENANT_WRITE_ACTIONS],
        Resource: TENANT_WRITE_KEYS.map((keys) => `${bucket}/${scope.tenantId}/${keys}`),
      },
      {
        Sid: 'BucketKeyThroughS3',
        Effect: 'Allow',
        Action: [...TENANT_KEY_ACTIONS],
        Resource: arn('kms', 'key/*'),
        Condition: { StringEquals: { 'kms:ViaService': `s3.${scope.region}.amazonaws.com` } },
      },
    ],
  };
}

/** The tenant role's trust: the roles that run trino-sql queries (the recipe-run machine's, the worker's), nobody else. */
export function tenantRoleTrust(principals: readonly string[]): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: { AWS: [...principals] }, Action: 'sts:AssumeRole' }],
  };
}
