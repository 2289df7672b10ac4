/**
 * Creates an API client of a tenant in a deployed stage and prints its credentials once (only
 * a digest of the secret is stored). Uses the caller's AWS credentials against the stage's
 * table, like any other writer of it.
 *
 *   TABLE_NAME=<table from the stack outputs> npm run create-client -- --tenant acme --roles admin [--description "..."] [--expires 2027-01-01]
 */
import { parseArgs } from 'node:util';
import { createClient } from '../../shared/auth/clients';
import { isRoleName, ROLE_NAMES } from '../../shared/auth/permissions';
import { TENANT_ID_PATTERN } from '../../shared/db/keys';

const { values } = parseArgs({
  options: {
    tenant: { type: 'string' },
    roles: { type: 'string', default: 'admin' },
    description: { type: 'string' },
    expires: { type: 'string' },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const tenantId = values.tenant ?? fail('--tenant is required');
if (!TENANT_ID_PATTERN.test(tenantId)) fail('--tenant must be lowercase letters, digits and inner hyphens');
const roles = values.roles.split(',').map((role) => role.trim());
const unknown = roles.filter((role) => !isRoleName(role));
if (unknown.length > 0) fail(`unknown role(s) ${unknown.join(', ')}; roles are ${ROLE_NAMES.join(', ')}`);
const expiresAt = values.expires === undefined ? undefined : new Date(values.expires);
if (expiresAt !== undefined && Number.isNaN(expiresAt.getTime())) fail('--expires must be an ISO 8601 date');
if (!process.env.TABLE_NAME) fail('TABLE_NAME must name the stage’s table (see the stack outputs)');

const credentials = await createClient({
  tenantId,
  roles: roles.filter(isRoleName),
  ...(values.description === undefined ? {} : { description: values.description }),
  ...(expiresAt === undefined ? {} : { expiresAt }),
});
process.stdout.write(`${JSON.stringify({ tenant_id: tenantId, roles, ...credentials }, null, 2)}\n`);
