/**
 * Creates an API client of a tenant and prints its credentials once (only a slow hash of the
 * secret is stored), as JSON on stdout. It goes through the identity provider like POST
 * /tokens (shared/identity/clients.ts): role names resolve to the tenant's roles the same way
 * (30-7001 unknown, 30-7002 ambiguous), without a creator whose permissions would bound them.
 * A tenant the registry does not have is created first, through the one tenant-creation path
 * (shared/tenants/create.ts): it is then in GET /admin/tenants with its system user, and this
 * client is its first; `tenant_created` in the output says whether that happened.
 *
 * Deployed stage: with the caller's AWS credentials against the stage's table, like any other
 * writer of it; a new tenant's system user secret is sealed with the stage's data key.
 *
 *   TABLE_NAME=<table from the stack outputs> DATA_KEY_ID=alias/data-preparation/<stage>/data \
 *     npm run create-client -- --tenant acme --roles admin [--description "..."] [--expires P90D]
 *
 * --expires takes what a token's `expiration` takes: an ISO 8601 date-time or duration.
 *
 * Local stack: against the stack `npm start` runs, found through the endpoints file it keeps
 * in its data folder (.local/endpoints.json, or --data-dir / DATA_DIR as given to npm start).
 *
 *   npm run create-client -- --local --tenant acme --roles admin
 *
 * A platform admin (the admin plane, /admin/...) is a client of the reserved tenant
 * "platform" with the platform-admin role, and that role belongs to no other tenant:
 *
 *   TABLE_NAME=<table> npm run create-client -- --tenant platform --roles platform-admin
 */
import { parseArgs } from 'node:util';
import { TENANT_ID_PATTERN } from '../../shared/db/keys';
import { isAppError } from '../../shared/errors/app-error';
import { expirationOf } from '../../shared/identity/expiration';
import { issueOperatorClient } from '../../shared/tenants/create';
import { PLATFORM_TENANT } from '../../shared/tenants/store';
import { useStack } from './stack';

const { values } = parseArgs({
  options: {
    tenant: { type: 'string' },
    roles: { type: 'string', default: 'admin' },
    description: { type: 'string' },
    expires: { type: 'string' },
    local: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
  },
});

function fail(message: string, exitCode = 2): never {
  process.stderr.write(`create-client: ${message}\n`);
  process.exit(exitCode);
}

const tenantId = values.tenant ?? fail('--tenant is required');
if (!TENANT_ID_PATTERN.test(tenantId)) fail('--tenant must be lowercase letters, digits and inner hyphens');
const roles = values.roles.split(',').map((role) => role.trim());
if (tenantId === PLATFORM_TENANT ? roles.some((role) => role !== 'platform-admin') : roles.includes('platform-admin'))
  fail(`tenant ${PLATFORM_TENANT} takes exactly the platform-admin role, which no other tenant may have`);
let expiresAt: Date | undefined;
try {
  expiresAt = values.expires === undefined ? undefined : expirationOf(values.expires);
} catch {
  fail('--expires must be an ISO 8601 date-time with offset or duration (e.g. P90D), in the future');
}

useStack({ local: values.local, dataDir: values['data-dir'] }, fail);

/** Creator of the tenants this script makes, as the registry names it (created_by). */
const CREATOR = 'create-client';

const credentials = await issueOperatorClient(
  {
    tenantId,
    roleNames: roles,
    ...(values.description === undefined ? {} : { description: values.description }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  },
  CREATOR,
).catch((error: unknown) => {
  // Refusals (an unknown or ambiguous role) are the caller's to fix; failures of the store are not.
  if (isAppError(error) && error.status < 500) return fail(`${error.code} ${error.message}`);
  if (!values.local) throw error;
  return fail(
    `the local stack at ${process.env.AWS_ENDPOINT_URL_DYNAMODB} did not take the client (${String(error)}); is npm start still running?`,
    1,
  );
});
process.stdout.write(`${JSON.stringify({ tenant_id: tenantId, roles, ...credentials }, null, 2)}\n`);
