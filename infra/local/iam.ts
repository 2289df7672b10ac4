/**
 * Local IAM and STS, as much of them as the per-tenant roles of trino-sql runs use
 * (shared/engine/athena/tenant-role.ts): CreateRole, GetRole, GetRolePolicy, PutRolePolicy,
 * UpdateAssumeRolePolicy and AssumeRole, over the AWS Query protocol (a form-encoded POST, an
 * XML answer; errors as `<ErrorResponse><Error><Code>`), one endpoint for both services, so
 * the workers' @aws-sdk/client-iam and client-sts talk to it as to AWS.
 *
 * It also says what a signed request may do (`authorize`), which the local Athena and Glue ask
 * before every action: a request signed with a session AssumeRole handed out is allowed an
 * action on a resource only when an Allow statement of that role's inline policies names both
 * (`*` and `?` wildcards, actions case-insensitive) and no Deny does; AWS's AccessDenied
 * otherwise. What it does not evaluate as IAM does: Condition blocks (a statement with one
 * grants nothing here), the permissions boundary (only checked to be the stage's on CreateRole
 * and PutRolePolicy, as the worker's grant requires; what it allows is CDK's, asserted in
 * test/infra/athena.test.ts), NotAction/NotResource, managed policies, resource policies and
 * session policies. Requests signed with the twin's own keys are the service's functions, whose
 * roles the twin does not model: they are allowed everything, and AssumeRole accepts them as
 * any of `serviceRoles`. Signatures are never checked; sessions last their DurationSeconds.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  tenantBoundaryName,
  tenantRolePath,
  type PolicyDocument,
  type PolicyStatementJson,
} from '../../shared/engine/athena/tenant-policy';
import { signingKeyId } from './json-protocol';

export const LOCAL_ACCOUNT = '000000000000';

export interface LocalIamOptions {
  /** Who a request signed with the twin's own keys is, when it assumes a role: the roles a tenant role trusts. */
  readonly serviceRoles: readonly string[];
  /** The boundary every role must be made with (the worker's grant names it in an iam:PermissionsBoundary condition). */
  readonly boundaryArn: string;
  readonly port?: number;
}

/** What the local Athena and Glue ask: may this key make this action on each of these resources. */
export interface LocalAuthorizer {
  /** Throws AccessDenied (its message as AWS words it) unless the key may; undefined or the twin's own keys may. */
  authorize(accessKeyId: string | undefined, action: string, resources: readonly string[]): void;
}

export interface LocalIam extends LocalAuthorizer {
  /** http://127.0.0.1:<port>, IAM's and STS's. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** A refusal as AWS says it: the caller, the action, the resource. */
export class AccessDenied extends Error {
  constructor(principal: string, action: string, resource: string) {
    super(`User: ${principal} is not authorized to perform: ${action} on resource: ${resource}`);
  }
}

class QueryError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

interface Role {
  readonly RoleName: string;
  readonly Path: string;
  readonly Arn: string;
  readonly RoleId: string;
  readonly CreateDate: string;
  readonly Description?: string;
  readonly MaxSessionDuration: number;
  readonly PermissionsBoundary: string;
  trust: PolicyDocument;
  readonly policies: Map<string, PolicyDocument>;
}

const list = <T>(value: T | readonly T[] | undefined): readonly T[] =>
  value === undefined ? [] : Array.isArray(value) ? (value as readonly T[]) : [value as T];

/** An IAM wildcard pattern (`*`, `?`) as a regular expression over the whole text. */
function wildcard(pattern: string, flags = ''): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, flags);
}

function names(statement: PolicyStatementJson, action: string, resource: string): boolean {
  return (
    list(statement.Action).some((pattern) => wildcard(pattern, 'i').test(action)) &&
    list(statement.Resource).some((pattern) => wildcard(pattern).test(resource))
  );
}

/** Allowed when an Allow without Condition names the action and resource and no Deny does. */
export function policiesAllow(policies: Iterable<PolicyDocument>, action: string, resource: string): boolean {
  let allowed = false;
  for (const policy of policies)
    for (const statement of policy.Statement) {
      if (!names(statement, action, resource)) continue;
      if (statement.Effect === 'Deny') return false;
      if (statement.Condition === undefined) allowed = true;
    }
  return allowed;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

type XmlValue = string | number | undefined | { readonly [name: string]: XmlValue };

function xml(value: XmlValue): string {
  if (value === undefined) return '';
  if (typeof value !== 'object') return escapeXml(String(value));
  return Object.entries(value)
    .filter(([, child]) => child !== undefined)
    .map(([name, child]) => `<${name}>${xml(child)}</${name}>`)
    .join('');
}

const NAMESPACES = {
  iam: 'https://iam.amazonaws.com/doc/2010-05-08/',
  sts: 'https://sts.amazonaws.com/doc/2011-06-15/',
} as const;

function roleXml(role: Role): XmlValue {
  return {
    Path: role.Path,
    RoleName: role.RoleName,
    RoleId: role.RoleId,
    Arn: role.Arn,
    CreateDate: role.CreateDate,
    AssumeRolePolicyDocument: encodeURIComponent(JSON.stringify(role.trust)),
    Description: role.Description,
    MaxSessionDuration: role.MaxSessionDuration,
    PermissionsBoundary: { PermissionsBoundaryType: 'Policy', PermissionsBoundaryArn: role.PermissionsBoundary },
  };
}

function parseDocument(text: string | null): PolicyDocument {
  try {
    const document = JSON.parse(text ?? '') as PolicyDocument;
    if (!Array.isArray(document.Statement)) throw new Error('no Statement');
    return document;
  } catch {
    throw new QueryError('MalformedPolicyDocument', 'The policy document is not valid JSON with a Statement list.');
  }
}

export async function startLocalIam(options: LocalIamOptions): Promise<LocalIam> {
  const roles = new Map<string, Role>();
  const sessions = new Map<string, { readonly role: Role; readonly arn: string; readonly expires: number }>();

  const roleNamed = (name: string | null): Role => {
    const role = roles.get(name ?? '');
    if (!role) throw new QueryError('NoSuchEntity', `The role with name ${name} cannot be found.`, 404);
    return role;
  };
  const withBoundary = (role: Role) => {
    if (role.PermissionsBoundary !== options.boundaryArn)
      throw new QueryError('AccessDenied', `A role must carry the permissions boundary ${options.boundaryArn}`, 403);
  };

  const operations: Record<string, (form: URLSearchParams, caller: string | undefined) => XmlValue> = {
    CreateRole(form) {
      const name = form.get('RoleName') ?? '';
      if (!/^[\w+=,.@-]{1,64}$/.test(name)) throw new QueryError('ValidationError', `Invalid RoleName ${name}`);
      if (roles.has(name)) throw new QueryError('EntityAlreadyExists', `Role with name ${name} already exists.`, 409);
      const path = form.get('Path') ?? '/';
      const role: Role = {
        RoleName: name,
        Path: path,
        Arn: `arn:aws:iam::${LOCAL_ACCOUNT}:role${path}${name}`,
        RoleId: `AROA${randomBytes(8).toString('hex').toUpperCase()}`,
        CreateDate: new Date().toISOString(),
        Description: form.get('Description') ?? undefined,
        MaxSessionDuration: Number(form.get('MaxSessionDuration') ?? 3600),
        PermissionsBoundary: form.get('PermissionsBoundary') ?? '',
        trust: parseDocument(form.get('AssumeRolePolicyDocument')),
        policies: new Map(),
      };
      withBoundary(role);
      roles.set(name, role);
      return { Role: roleXml(role) };
    },
    GetRole: (form) => ({ Role: roleXml(roleNamed(form.get('RoleName'))) }),
    GetRolePolicy(form) {
      const role = roleNamed(form.get('RoleName'));
      const name = form.get('PolicyName') ?? '';
      const policy = role.policies.get(name);
      if (!policy) throw new QueryError('NoSuchEntity', `The role policy with name ${name} cannot be found.`, 404);
      return { RoleName: role.RoleName, PolicyName: name, PolicyDocument: encodeURIComponent(JSON.stringify(policy)) };
    },
    PutRolePolicy(form) {
      const role = roleNamed(form.get('RoleName'));
      withBoundary(role);
      role.policies.set(form.get('PolicyName') ?? '', parseDocument(form.get('PolicyDocument')));
      return {};
    },
    UpdateAssumeRolePolicy(form) {
      roleNamed(form.get('RoleName')).trust = parseDocument(form.get('PolicyDocument'));
      return {};
    },
    AssumeRole(form, caller) {
      const arn = form.get('RoleArn') ?? '';
      const role = [...roles.values()].find((candidate) => candidate.Arn === arn);
      const session = caller === undefined ? undefined : sessions.get(caller);
      const callers = session ? [session.role.Arn] : options.serviceRoles;
      const trusted =
        role?.trust.Statement.some(
          (statement) =>
            statement.Effect === 'Allow' &&
            list(statement.Action).some((action) => wildcard(action, 'i').test('sts:AssumeRole')) &&
            list(statement.Principal?.AWS).some((principal) => callers.includes(principal)),
        ) ?? false;
      if (!trusted)
        throw new QueryError(
          'AccessDenied',
          new AccessDenied(callers[0] ?? 'anonymous', 'sts:AssumeRole', arn).message,
          403,
        );
      const seconds = Number(form.get('DurationSeconds') ?? 3600);
      const expires = Date.now() + seconds * 1000;
      const keyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
      const sessionArn = `arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/${role!.RoleName}/${form.get('RoleSessionName') ?? ''}`;
      sessions.set(keyId, { role: role!, arn: sessionArn, expires });
      return {
        Credentials: {
          AccessKeyId: keyId,
          SecretAccessKey: randomBytes(20).toString('base64'),
          SessionToken: randomBytes(32).toString('base64'),
          Expiration: new Date(expires).toISOString(),
        },
        AssumedRoleUser: { AssumedRoleId: `${role!.RoleId}:${form.get('RoleSessionName') ?? ''}`, Arn: sessionArn },
      };
    },
  };

  async function answer(req: IncomingMessage): Promise<{ status: number; body: string }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const action = form.get('Action') ?? '';
    const namespace = action === 'AssumeRole' ? NAMESPACES.sts : NAMESPACES.iam;
    const requestId = randomBytes(16).toString('hex');
    try {
      const run = Object.hasOwn(operations, action) ? operations[action] : undefined;
      if (!run) throw new QueryError('InvalidAction', `${action || 'No action'} is not supported by the local IAM`);
      const result = xml(run(form, signingKeyId(req.headers.authorization)));
      return {
        status: 200,
        body: `<${action}Response xmlns="${namespace}"><${action}Result>${result}</${action}Result><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`,
      };
    } catch (error) {
      const known = error instanceof QueryError ? error : new QueryError('ServiceFailure', String(error), 500);
      return {
        status: known.status,
        body: `<ErrorResponse xmlns="${namespace}">${xml({ Error: { Type: 'Sender', Code: known.code, Message: known.message }, RequestId: requestId })}</ErrorResponse>`,
      };
    }
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void answer(req).then(
      ({ status, body }) => {
        res.writeHead(status, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    authorize(accessKeyId, action, resources) {
      const session = accessKeyId === undefined ? undefined : sessions.get(accessKeyId);
      if (!session) return;
      for (const resource of resources)
        if (session.expires < Date.now() || !policiesAllow(session.role.policies.values(), action, resource))
          throw new AccessDenied(session.arn, action, resource);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The twin's tenant roles: their boundary (a name only: the twin has no managed policies) and the service roles they trust. */
export function localTenantRoles(workgroupPrefix: string): { boundaryArn: string; serviceRoles: string[] } {
  const arn = (resource: string) => `arn:aws:iam::${LOCAL_ACCOUNT}:${resource}`;
  return {
    boundaryArn: arn(`policy${tenantRolePath(workgroupPrefix)}${tenantBoundaryName(workgroupPrefix)}`),
    serviceRoles: [arn('role/dps-local-run-recipe-worker'), arn('role/dps-local-recipe-run-machine')],
  };
}
