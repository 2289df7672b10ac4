/**
 * Every tenant is in the registry (issue 38): the twin's bootstrap tenant `local`, a tenant
 * made by `npm run create-client -- --local`, and the tenants of a data folder from before
 * (clients but no registry record), which the twin registers at start, once. All come through
 * shared/tenants/create.ts, whose registration is safe to run concurrently.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeEndpointsFile } from '../../../infra/local/endpoints-file';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { DATA_BUCKET, TABLE_NAME, TWIN_CREATOR } from '../../../infra/local/twin';
import { createCredentials } from '../../../shared/identity/clients';
import { identityProvider } from '../../../shared/identity/provider';
import { issueOperatorClient, registerTenant } from '../../../shared/tenants/create';
import { tenantRegistry } from '../../../shared/tenants/store';
import { ApiClient } from '../../support/api-client';
import { exchangeToken, startTestTwin, type TestTwin } from '../../support/harness';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'dps-tenant-registry-'));
let env: TestTwin;

beforeAll(async () => {
  env = await startTestTwin({ dataDir });
});
afterAll(async () => {
  await env?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const tenantOf = (tenantId: string) => env.platformAdmin.call('getTenant', { params: { tenant_id: tenantId } });
const clientIdsOf = async (tenantId: string) =>
  (await identityProvider().listClients(tenantId)).map((client) => client.client_id).sort();

/** Runs `npm run create-client` as its own process, against this twin through its endpoints file. */
function createClient(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/scripts/create-client.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('the bootstrap tenant', () => {
  it('GET /admin/tenants/local answers 200 on a fresh twin, with a system user; the platform is no tenant', async () => {
    const local = await tenantOf('local');
    expect(local.status, local.text).toBe(200);
    expect(local.body).toMatchObject({ tenant_id: 'local', created_by: TWIN_CREATOR });
    const systemUser = await env.platformAdmin.call('getTenantSystemUser', { params: { tenant_id: 'local' } });
    expect(systemUser.status, systemUser.text).toBe(200);
    expect(systemUser.body).toMatchObject({ client_id: local.body.system_user_client_id, roles: ['system-admin'] });
    const listed = await env.platformAdmin.call('listTenants');
    expect(listed.body.items.map((tenant) => tenant.tenant_id)).toContain('local');
    expect(listed.body.items.map((tenant) => tenant.tenant_id)).not.toContain('platform');
    // The bootstrap admin is the tenant's customer user, and still works.
    expect((await env.admin.call('listConnections')).status).toBe(200);
  });
});

describe('npm run create-client -- --local', () => {
  it('makes a tenant that GET /admin/tenants shows; a second client joins it', async () => {
    writeEndpointsFile(dataDir, {
      pid: process.pid,
      api: env.twin.apiUrl,
      apiReference: `${env.twin.apiUrl}/docs`,
      openApi: `${env.twin.apiUrl}/openapi.json`,
      ...env.twin.endpoints,
      deltaSharing: 'http://127.0.0.1:9/delta-sharing/',
      pricingDim: 'http://127.0.0.1:9',
      pricingTokenUrl: 'http://127.0.0.1:9/oauth/token',
      region: 'us-east-1',
      accessKeyId: LOCAL_S3_CREDENTIALS.accessKeyId,
      secretAccessKey: LOCAL_S3_CREDENTIALS.secretAccessKey,
      tableName: TABLE_NAME,
      dataBucket: DATA_BUCKET,
    });
    const args = ['--local', '--data-dir', dataDir, '--tenant', 'scripted', '--roles', 'admin'];
    const made = await createClient(args);
    expect(made.code, made.stderr).toBe(0);
    const client = JSON.parse(made.stdout) as { client_id: string; client_secret: string; tenant_created: boolean };
    expect(client.tenant_created).toBe(true);

    const listed = await env.platformAdmin.call('listTenants', { query: { filter: "tenant_id eq 'scripted'" } });
    expect(listed.body.items).toEqual([
      expect.objectContaining({ tenant_id: 'scripted', created_by: 'create-client' }),
    ]);
    const scripted = new ApiClient(
      env.twin.apiUrl,
      await exchangeToken(env.twin.apiUrl, client.client_id, client.client_secret),
    );
    expect((await scripted.call('listConnections')).status).toBe(200);
    const customer = await env.platformAdmin.call('getTenantCustomerUser', {
      params: { tenant_id: 'scripted', client_id: client.client_id },
    });
    expect(customer.status, customer.text).toBe(200);

    const again = await createClient([...args.slice(0, -2), '--roles', 'viewer']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ tenant_created: false, roles: ['viewer'] });
    // The first client, the second, and one system user.
    expect(await clientIdsOf('scripted')).toHaveLength(3);
  }, 120_000);
});

describe('toggle overrides', () => {
  it('an override for a tenant the registry does not have is 50-1003, and nothing is stored', async () => {
    const params = { toggle_name: 'retention', tenant_id: 'nobody-here' };
    const refused = await env.platformAdmin.call('setFeatureToggleOverride', { params, body: { strategy: 'on' } });
    expect(refused.status, refused.text).toBe(404);
    expect(refused.problem).toMatchObject({ code: '50-1003', extraDetails: { tenant_id: 'nobody-here' } });
    const toggle = await env.platformAdmin.call('getFeatureToggle', { params: { toggle_name: 'retention' } });
    expect(toggle.body.overrides.map((override) => override.tenant_id)).not.toContain('nobody-here');
    // The platform's own tenant is no tenant either.
    const platform = await env.platformAdmin.call('setFeatureToggleOverride', {
      params: { ...params, tenant_id: 'platform' },
      body: { strategy: 'on' },
    });
    expect(platform.problem.code).toBe('50-1003');

    const made = await env.platformAdmin.call('setFeatureToggleOverride', {
      params: { ...params, tenant_id: 'local' },
      body: { strategy: 'on' },
    });
    expect(made.status, made.text).toBe(200);
    expect(made.body.overrides).toContainEqual({ tenant_id: 'local', strategy: 'on' });
  });
});

describe('tenants outside the registry', () => {
  it('parallel registrations of one tenant make one record and one system user', async () => {
    const original = await createCredentials({ tenantId: 'racing', roleNames: ['admin'] });
    const records = await Promise.all(Array.from({ length: 6 }, () => registerTenant('racing', 'test')));
    expect(new Set(records.map((record) => record.system_user_client_id)).size).toBe(1);
    expect(await clientIdsOf('racing')).toEqual([original.client_id, records[0]!.system_user_client_id].sort());

    const issued = await Promise.all(
      Array.from({ length: 4 }, () => issueOperatorClient({ tenantId: 'crowded', roleNames: ['viewer'] }, 'test')),
    );
    expect(issued.filter((client) => client.tenant_created)).toHaveLength(1);
    const crowded = await tenantRegistry.find('crowded');
    expect(await clientIdsOf('crowded')).toEqual(
      [...issued.map((client) => client.client_id), crowded!.system_user_client_id].sort(),
    );
  });

  it('a twin started over a data folder whose tenants have no record registers them, once', async () => {
    // A data folder from before: a tenant made by the old create-client, and `local` unregistered.
    const legacy = await createCredentials({ tenantId: 'legacy', roleNames: ['admin'] });
    await tenantRegistry.remove('local');
    expect((await tenantOf('local')).problem.code).toBe('50-1003');
    expect((await tenantOf('legacy')).problem.code).toBe('50-1003');
    await env.close();

    env = await startTestTwin({ dataDir });
    const registered = await Promise.all(['local', 'legacy'].map((tenantId) => tenantOf(tenantId)));
    for (const tenant of registered) {
      expect(tenant.status, tenant.text).toBe(200);
      expect(tenant.body).toMatchObject({ created_by: TWIN_CREATOR });
    }
    const legacyClients = await clientIdsOf('legacy');
    expect(legacyClients).toEqual([legacy.client_id, registered[1]!.body.system_user_client_id].sort());
    const legacyAdmin = new ApiClient(
      env.twin.apiUrl,
      await exchangeToken(env.twin.apiUrl, legacy.client_id, legacy.client_secret),
    );
    expect((await legacyAdmin.call('listConnections')).status).toBe(200);
    const override = await env.platformAdmin.call('setFeatureToggleOverride', {
      params: { toggle_name: 'retention', tenant_id: 'legacy' },
      body: { strategy: 'on' },
    });
    expect(override.status, override.text).toBe(200);

    // A second start changes nothing.
    await env.close();
    env = await startTestTwin({ dataDir });
    const again = await tenantOf('legacy');
    expect(again.body).toEqual(registered[1]!.body);
    expect((await tenantOf('local')).body).toEqual(registered[0]!.body);
    expect(await clientIdsOf('legacy')).toEqual(legacyClients);
  }, 120_000);
});
