/**
 * Creates an API client of a tenant and prints its credentials once (only a digest of the
 * secret is stored), as JSON on stdout.
 *
 * Deployed stage: with the caller's AWS credentials against the stage's table, like any other
 * writer of it.
 *
 *   TABLE_NAME=<table from the stack outputs> npm run create-client -- --tenant acme --roles admin [--description "..."] [--expires 2027-01-01]
 *
 * Local stack: against the stack `npm start` runs, found through the endpoints file it keeps
 * in its data folder (.local/endpoints.json, or --data-dir / DATA_DIR as given to npm start).
 *
 *   npm run create-client -- --local --tenant acme --roles admin
 */
import { parseArgs } from 'node:util';
import { createClient } from '../../shared/auth/clients';
import { isRoleName, ROLE_NAMES } from '../../shared/auth/permissions';
import { TENANT_ID_PATTERN } from '../../shared/db/keys';
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
const unknown = roles.filter((role) => !isRoleName(role));
if (unknown.length > 0) fail(`unknown role(s) ${unknown.join(', ')}; roles are ${ROLE_NAMES.join(', ')}`);
const expiresAt = values.expires === undefined ? undefined : new Date(values.expires);
if (expiresAt !== undefined && Number.isNaN(expiresAt.getTime())) fail('--expires must be an ISO 8601 date');

useStack({ local: values.local, dataDir: values['data-dir'] }, fail);

const credentials = await createClient({
  tenantId,
  roles: roles.filter(isRoleName),
  ...(values.description === undefined ? {} : { description: values.description }),
  ...(expiresAt === undefined ? {} : { expiresAt }),
}).catch((error: unknown) => {
  if (!values.local) throw error;
  return fail(
    `the local stack at ${process.env.AWS_ENDPOINT_URL_DYNAMODB} did not take the client (${String(error)}); is npm start still running?`,
    1,
  );
});
process.stdout.write(`${JSON.stringify({ tenant_id: tenantId, roles, ...credentials }, null, 2)}\n`);
