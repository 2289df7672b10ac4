import { isDeepStrictEqual } from 'node:util';
import { AthenaClient } from '@aws-sdk/client-athena';
import { GetDatabaseCommand, GlueClient } from '@aws-sdk/client-glue';
import {
  CreateRoleCommand,
  EntityAlreadyExistsException,
  GetRoleCommand,
  GetRolePolicyCommand,
  IAMClient,
  NoSuchEntityException,
  PutRolePolicyCommand,
  UpdateAssumeRolePolicyCommand,
} from '@aws-sdk/client-iam';
import { AssumeRoleCommand, STSClient, type Credentials } from '@aws-sdk/client-sts';
import { perStores } from '../../aws/per-stores';
import { config } from '../../config';
import { logger } from '../../log';
import { traceClient } from '../../observability/tracing';
import { athenaDatabase } from './run-prefix';
import {
  TENANT_POLICY_NAME,
  tenantRoleName,
  tenantRolePath,
  tenantRolePolicy,
  tenantRoleTrust,
  type PolicyDocument,
} from './tenant-policy';

/**
 * The tenant's role of trino-sql runs (docs/decisions.md, "Per-tenant roles of trino-sql
 * runs"), made at its first run next to its workgroup and database: under the stage's path,
 * with the stage's permissions boundary, trusting the recipe-run machine's and worker's roles,
 * its inline policy naming only the tenant's workgroup, database and prefixes. The worker does
 * the run's Athena and Glue calls with it (tenantClients), and the machine's `RunQuery` state
 * runs the query with it (`Credentials.RoleArn`, the handoff's `role_arn`).
 */

const iamClient = perStores(
  () => traceClient(new IAMClient({})),
  (client) => client.destroy(),
);
const stsClient = perStores(
  () => traceClient(new STSClient({})),
  (client) => client.destroy(),
);

/** The tenant's workgroup (query.ts athenaWorkgroup, without the Trino parser query.ts brings). */
const workgroupOf = (tenantId: string) => `${config.athena.workgroupPrefix}${tenantId}`;

/** partition and account of an IAM ARN (the boundary's: the worker's environment names no account otherwise). */
function arnParts(arn: string): { partition: string; account: string } {
  const [, partition, , , account] = arn.split(':');
  if (!partition || !account) throw new Error(`ATHENA_ROLE_BOUNDARY_ARN is not an IAM ARN: ${arn}`);
  return { partition, account };
}

/** The documents the tenant's role must have. */
function desiredRole(tenantId: string): { name: string; arn: string; trust: PolicyDocument; policy: PolicyDocument } {
  const { boundaryArn, trusted } = config.athenaTenantRoles;
  const { partition, account } = arnParts(boundaryArn);
  const prefix = config.athena.workgroupPrefix;
  const name = tenantRoleName(prefix, tenantId);
  return {
    name,
    arn: `arn:${partition}:iam::${account}:role${tenantRolePath(prefix)}${name}`,
    trust: tenantRoleTrust(trusted),
    policy: tenantRolePolicy({
      partition,
      account,
      region: process.env.AWS_REGION ?? 'us-east-1',
      bucket: config.dataBucket,
      tenantId,
      workgroup: workgroupOf(tenantId),
      database: athenaDatabase(tenantId),
    }),
  };
}

/** A document IAM answers (URL-encoded JSON) equal to `wanted`; false when it cannot be read. */
function sameDocument(encoded: string | undefined, wanted: PolicyDocument): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(decodeURIComponent(encoded ?? '')), wanted);
  } catch {
    return false;
  }
}

/**
 * Makes the tenant's role, or brings an existing one's trust and policy to what this code
 * wants; answers its ARN and whether anything was written (IAM is then eventually consistent:
 * see tenantClients). Two runs of a tenant may do it at once: CreateRole's EntityAlreadyExists
 * means the other made it, and both then write the same policy.
 */
export async function ensureTenantRole(tenantId: string): Promise<{ arn: string; changed: boolean }> {
  const role = desiredRole(tenantId);
  const iam = iamClient();
  let changed = false;
  const existing = await iam.send(new GetRoleCommand({ RoleName: role.name })).catch((error: unknown) => {
    if (error instanceof NoSuchEntityException) return undefined;
    throw error;
  });
  if (existing?.Role === undefined) {
    changed = true;
    await iam
      .send(
        new CreateRoleCommand({
          RoleName: role.name,
          Path: tenantRolePath(config.athena.workgroupPrefix),
          AssumeRolePolicyDocument: JSON.stringify(role.trust),
          PermissionsBoundary: config.athenaTenantRoles.boundaryArn,
          Description: `trino-sql recipe runs of tenant ${tenantId}`,
          MaxSessionDuration: 3600,
        }),
      )
      .catch((error: unknown) => {
        if (!(error instanceof EntityAlreadyExistsException)) throw error;
      });
  } else if (!sameDocument(existing.Role.AssumeRolePolicyDocument, role.trust)) {
    changed = true;
    await iam.send(
      new UpdateAssumeRolePolicyCommand({ RoleName: role.name, PolicyDocument: JSON.stringify(role.trust) }),
    );
  }
  const inline = changed
    ? undefined
    : await iam
        .send(new GetRolePolicyCommand({ RoleName: role.name, PolicyName: TENANT_POLICY_NAME }))
        .catch((error: unknown) => {
          if (error instanceof NoSuchEntityException) return undefined;
          throw error;
        });
  if (!sameDocument(inline?.PolicyDocument, role.policy)) {
    changed = true;
    await iam.send(
      new PutRolePolicyCommand({
        RoleName: role.name,
        PolicyName: TENANT_POLICY_NAME,
        PolicyDocument: JSON.stringify(role.policy),
      }),
    );
  }
  return { arn: role.arn, changed };
}

/** How long a new or changed role may take to be assumable and in force: IAM propagates in seconds. */
const PROPAGATION = { firstMs: 500, mostMs: 4000, totalMs: 60_000 } as const;

const isAccessDenied = (error: unknown) =>
  error instanceof Error && /AccessDenied|not authorized/i.test(`${error.name} ${error.message}`);

/** The Athena and Glue clients of a tenant's runs, signed with its role's session. */
export interface TenantClients {
  readonly roleArn: string;
  readonly athena: AthenaClient;
  readonly glue: GlueClient;
  readonly expires: number;
}

function clientsOf(roleArn: string, credentials: Credentials): TenantClients {
  const signing = {
    accessKeyId: credentials.AccessKeyId!,
    secretAccessKey: credentials.SecretAccessKey!,
    sessionToken: credentials.SessionToken,
  };
  return {
    roleArn,
    athena: traceClient(new AthenaClient({ credentials: signing })),
    glue: traceClient(new GlueClient({ credentials: signing })),
    expires: credentials.Expiration?.getTime() ?? Date.now() + 15 * 60_000,
  };
}

/**
 * Assumes the role; after a change, until the role is assumable and its policy reads the
 * tenant's database (a GetDatabase that is not AccessDenied), at most PROPAGATION.totalMs.
 */
async function assumed(tenantId: string, roleArn: string, changed: boolean): Promise<TenantClients> {
  const deadline = Date.now() + PROPAGATION.totalMs;
  let wait: number = PROPAGATION.firstMs;
  for (;;) {
    try {
      const { Credentials } = await stsClient().send(
        new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: `trino-sql-${tenantId}`.slice(0, 64) }),
      );
      const clients = clientsOf(roleArn, Credentials!);
      if (changed)
        await clients.glue.send(new GetDatabaseCommand({ Name: athenaDatabase(tenantId) })).catch((error: unknown) => {
          if (isAccessDenied(error)) throw error;
        });
      return clients;
    } catch (error) {
      if (!changed || !isAccessDenied(error) || Date.now() + wait > deadline) throw error;
      logger.info('waiting for a new tenant role to propagate', { tenantId });
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, PROPAGATION.mostMs);
    }
  }
}

/** Each tenant's clients in this process, while their session has 5 minutes left. */
const sessions = perStores(() => new Map<string, Promise<TenantClients>>());

/**
 * The tenant's Athena and Glue clients, signed with its role (made or brought up to date on
 * the process's first use for the tenant); a session is kept until 5 minutes before it ends.
 */
export async function tenantClients(tenantId: string): Promise<TenantClients> {
  const kept = sessions();
  const held = kept.get(tenantId);
  const previous = held && (await held.catch(() => undefined));
  if (previous && previous.expires - Date.now() > 5 * 60_000) return previous;
  if (previous) {
    previous.athena.destroy();
    previous.glue.destroy();
  }
  const made = (async () => {
    // A session that ran out: the role was made or checked by this process already.
    if (previous) return assumed(tenantId, previous.roleArn, false);
    const { arn, changed } = await ensureTenantRole(tenantId);
    return assumed(tenantId, arn, changed);
  })();
  kept.set(tenantId, made);
  made.catch(() => kept.delete(tenantId));
  return made;
}
