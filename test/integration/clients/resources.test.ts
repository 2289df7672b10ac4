/**
 * @dps/client against one twin, resource by resource, as a TypeScript user meets them: only
 * the package's public exports (its index), typed calls through `dps.api`, lists through
 * `dps.list`, the one job (an import) through `waitForJob`, refusals as `ProblemError`. Every
 * client of the file records the method and path template of each successful answer, and the
 * last test fails naming every tag of the served OpenAPI document that none of them reached:
 * a new domain of the API needs a call here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOGGLE_CACHE_MS } from '../../../shared/features/store';
import {
  createDpsClient,
  ok,
  ProblemError,
  waitForJob,
  type ClientCredentials,
  type DpsClient,
  type JobProgressEvent,
} from '../../../clients/typescript/src/index';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { putObjects } from '../../support/imports';

const CSV = 'order_id,region,amount\n1,north,120.5\n2,south,80\n3,north,42\n';
const TENANT = 'client-tour';
const SQL = 'SELECT region, sum(amount) AS total FROM sales GROUP BY region';

let env: TestTwin;
/** The platform admin: the admin plane. */
let platform: DpsClient;
/** The admin of TENANT, a tenant the platform admin makes through the client. */
let dps: DpsClient;
/** What the import test made: its table (version 1 COMPLETED) and its connection. */
const made: { tableId?: number; connectionId?: number } = {};

/** "METHOD /path/template" of every 2xx answer any client of this file received. */
const reached = new Set<string>();

/** A client of the twin that records what it reached. */
function recordedClient(auth: { credentials: ClientCredentials } | Record<string, never>): DpsClient {
  const client = createDpsClient({ baseUrl: env.twin.apiUrl, ...auth });
  // Registered after the client's own middleware, so it sees each answer first (openapi-fetch
  // runs onResponse last to first), refusals too: those are left out by the status.
  client.api.use({
    onResponse({ request, response, schemaPath }) {
      if (response.ok) reached.add(`${request.method} ${schemaPath}`);
      return undefined;
    },
  });
  return client;
}

/** The ProblemError a call is refused with. */
async function refusal(call: Promise<unknown>): Promise<ProblemError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ProblemError);
  return error as ProblemError;
}

/** An object-store connection to the twin's S3, optionally writable. */
async function s3Connection(name: string, write = false): Promise<number> {
  const connection = await ok(
    dps.api.POST('/connections', {
      body: {
        name,
        type: 'object_store',
        write,
        auth: {
          auth_type: 'secret_key',
          access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
          secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
          endpoint: env.twin.s3.endpoint,
        },
      },
    }),
  );
  return connection.id;
}

beforeAll(async () => {
  env = await startTestTwin({
    buckets: ['landing'],
    // A model endpoint makes the ai_assistant toggle available; nothing here sends a message,
    // the one request that would call it (test/integration/conversations covers the model).
    environment: { ASSISTANT_CHAT_ENDPOINT: 'http://127.0.0.1:9/v1' },
  });
  await putObjects(env, 'landing', { 'sales/2024-01.csv': CSV });
  platform = recordedClient({
    credentials: { clientId: env.twin.platformAdmin.client_id, clientSecret: env.twin.platformAdmin.client_secret },
  });
  const tenant = await ok(
    platform.api.POST('/admin/tenants', { body: { tenant_id: TENANT, name: 'Client tour', description: null } }),
  );
  expect(tenant).toMatchObject({ tenant_id: TENANT, admin_client: { client_secret: expect.any(String) } });
  dps = recordedClient({
    credentials: { clientId: tenant.admin_client.client_id, clientSecret: tenant.admin_client.client_secret ?? '' },
  });
});
afterAll(() => env?.close());

describe('@dps/client against the twin', () => {
  it('auth and meta: a token for client credentials, the OpenAPI document, an error type', async () => {
    const anonymous = recordedClient({});
    const token = await ok(
      anonymous.api.POST('/oauth/token', {
        body: {
          grant_type: 'client_credentials',
          client_id: env.twin.admin.client_id,
          client_secret: env.twin.admin.client_secret,
        },
      }),
    );
    expect(token).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    const wrong = await refusal(
      anonymous.api.POST('/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: env.twin.admin.client_id, client_secret: 'wrong' },
      }),
    );
    expect(wrong).toMatchObject({ status: 401, code: '10-401' });
    const document = await ok(anonymous.api.GET('/openapi.json'));
    expect(document).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
    const errorType = await ok(anonymous.api.GET('/errors/{code}', { params: { path: { code: '30-1106' } } }));
    expect(errorType).toMatchObject({ code: '30-1106', status: 400 });
  });

  it('admin: tenants, and feature toggles turned on for one tenant', async () => {
    const tenants: string[] = [];
    for await (const tenant of platform.list('/admin/tenants')) tenants.push(tenant.tenant_id);
    expect(tenants).toContain(TENANT);
    expect(
      await ok(platform.api.GET('/admin/tenants/{tenant_id}', { params: { path: { tenant_id: TENANT } } })),
    ).toMatchObject({ tenant_id: TENANT, name: 'Client tour' });
    // The features the later tests use, off by default, on for this tenant only.
    for (const toggle of ['ai_assistant', 'apps', 'retention', 'transfers'])
      await ok(
        platform.api.PUT('/admin/feature-toggles/{toggle_name}/tenants/{tenant_id}', {
          params: { path: { toggle_name: toggle, tenant_id: TENANT } },
          body: { strategy: 'on' },
        }),
      );
    const toggle = await ok(
      platform.api.GET('/admin/feature-toggles/{toggle_name}', { params: { path: { toggle_name: 'ai_assistant' } } }),
    );
    expect(toggle.name).toBe('ai_assistant');
    expect(JSON.stringify(toggle.overrides)).toContain(TENANT);
    // The admin plane is the platform admin's alone.
    expect(await refusal(dps.api.GET('/admin/tenants'))).toMatchObject({ status: 403 });
  });

  it('connections, data sources and data tables: an import waited for with progress, then previewed', async () => {
    const connectionId = await s3Connection('landing');
    const connection = await ok(
      dps.api.GET('/connections/{connection_id}', { params: { path: { connection_id: connectionId } } }),
    );
    expect(connection).toMatchObject({ name: 'landing', type: 'object_store' });
    // Secrets are write-only: the answer names the key id, never the secret.
    expect(connection.auth).toMatchObject({ access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId });
    expect(connection.auth).not.toHaveProperty('secret_access_key');
    const tested = await ok(
      dps.api.POST('/connections/{connection_id}/test', {
        params: { path: { connection_id: connectionId } },
        body: { type: 'object_store' },
      }),
    );
    expect(tested).toMatchObject({ id: connectionId, name: 'landing' });
    const missing = await refusal(
      dps.api.GET('/connections/{connection_id}', { params: { path: { connection_id: 987_654 } } }),
    );
    expect(missing).toMatchObject({ status: 404, code: '10-404' });

    const source = await ok(
      dps.api.POST('/data-sources', {
        body: { name: 'sales files', type: 'bucket', connection_id: connectionId, path: 'landing/sales/' },
      }),
    );
    expect(await ok(dps.api.GET('/data-sources'))).toMatchObject({ total: 1, items: [{ id: source.id }] });
    const table = await ok(dps.api.POST('/data-tables', { body: { name: 'sales', data_source_id: source.id } }));
    expect(table).toMatchObject({ name: 'sales', data_version_exist: false });

    const { results } = await ok(dps.api.POST('/data-versions/batch-create', { body: { data_table_ids: [table.id] } }));
    const versionNumber = results[0]?.data_version?.version_number;
    expect(versionNumber).toBe(1);
    const events: JobProgressEvent[] = [];
    const outcome = await waitForJob(
      dps,
      { kind: 'import', dataTableId: table.id, versionNumber: 1 },
      { intervalMs: 100, onProgress: (event) => events.push(event) },
    );
    expect(outcome.status).toBe('COMPLETED');
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', percent: 100 });
    const preview = await ok(
      dps.api.GET('/data-tables/{data_table_id}/versions/{version_number}/preview', {
        params: { path: { data_table_id: table.id, version_number: 1 } },
      }),
    );
    expect(preview.row_count).toBe(3);
    expect(preview.columns.map((column) => column.name)).toEqual(['order_id', 'region', 'amount']);
    const tables: string[] = [];
    for await (const item of dps.list('/data-tables', { pageSize: 1 })) tables.push(String(item.name));
    expect(tables).toEqual(['sales']);
    made.tableId = table.id;
    made.connectionId = connectionId;
  });

  it('recipes and datasets: an analysed recipe, a dataset graph with a table and a recipe node', async () => {
    const tableId = made.tableId;
    expect(tableId, 'the import test made a table').toBeDefined();
    const analysis = await ok(
      dps.api.POST('/recipes/analyze', {
        body: {
          code: SQL,
          aliases: ['sales'],
          tables: {
            sales: [
              { name: 'order_id', type: 'BIGINT' },
              { name: 'region', type: 'VARCHAR' },
              { name: 'amount', type: 'DOUBLE' },
            ],
          },
        },
      }),
    );
    expect(analysis.columns).toEqual([
      { name: 'region', type: 'VARCHAR' },
      { name: 'total', type: 'DOUBLE' },
    ]);
    const recipe = await ok(
      dps.api.POST('/recipes', { body: { name: 'by region', aliases: ['sales'], recipe_version: { code: SQL } } }),
    );
    expect(recipe).toMatchObject({ language: 'duckdb-sql', latest_version: { version_number: 1 } });
    expect(await ok(dps.api.GET('/recipes'))).toMatchObject({ total_count: 1, items: [{ id: recipe.id }] });

    const dataset = await ok(dps.api.POST('/datasets', { body: { name: 'regions' } }));
    expect(dataset.latest_transformation_graph).toMatchObject({ version_number: 1, release_status: false });
    const path = { dataset_id: dataset.id, version_number: 1 };
    const tableNode = await ok(
      dps.api.POST('/datasets/{dataset_id}/versions/{version_number}/nodes', {
        params: { path },
        body: { node_type: 'TABLE', dataset_id: dataset.id, data_table_id: tableId! },
      }),
    );
    await ok(
      dps.api.POST('/datasets/{dataset_id}/versions/{version_number}/nodes', {
        params: { path },
        body: {
          node_type: 'RECIPE',
          dataset_id: dataset.id,
          recipe_id: recipe.id,
          recipe_version_number: 1,
          source_node_definitions: [{ source_node_id: tableNode.id, alias: 'sales' }],
        },
      }),
    );
    const graph = await ok(dps.api.GET('/datasets/{dataset_id}/versions/{version_number}', { params: { path } }));
    expect(graph.edges).toEqual([expect.objectContaining({ source_node_id: tableNode.id, alias: 'sales' })]);
  });

  it('targets, exports and transfers: a bucket target; an export to a missing target and a transfer to a bucket are refused', async () => {
    const connectionId = await s3Connection('exports', true);
    const target = await ok(
      dps.api.POST('/targets', {
        body: { name: 'out', type: 'bucket', connection_id: connectionId, path: 'landing/exports/{dataset_name}/' },
      }),
    );
    expect(await ok(dps.api.GET('/targets/{target_id}', { params: { path: { target_id: target.id } } }))).toMatchObject(
      { name: 'out', type: 'bucket' },
    );
    expect(await ok(dps.api.GET('/exports'))).toMatchObject({ total: 0, items: [] });
    expect(await ok(dps.api.GET('/transfers'))).toMatchObject({ total: 0, items: [] });
    const source = { source_type: 'datatable', source_id: made.tableId ?? 1, source_version: 1 } as const;
    const exportRefused = await refusal(dps.api.POST('/exports', { body: { target_id: 987_654, ...source } }));
    expect(exportRefused).toMatchObject({ status: 400, code: '30-6002' });
    const transferRefused = await refusal(dps.api.POST('/transfers', { body: { target_id: target.id, ...source } }));
    // A transfer goes to a pricing system: a bucket target is not one.
    expect(transferRefused).toMatchObject({ status: 400, code: '10-1042' });
  });

  it('retention: the policy read, changed with its lock version, and the sweep it would make', async () => {
    const policy = await ok(dps.api.GET('/retention-policy'));
    expect(policy).toMatchObject({ enabled: false, lock_version: 0 });
    const changed = await ok(
      dps.api.PUT('/retention-policy', {
        body: { enabled: true, rule: { threshold_days: 1 }, lock_version: policy.lock_version },
      }),
    );
    expect(changed).toMatchObject({ enabled: true, rule: { threshold_days: 1 }, lock_version: 1 });
    const stale = await refusal(
      dps.api.PUT('/retention-policy', { body: { enabled: false, lock_version: policy.lock_version } }),
    );
    expect(stale.status).toBe(409);
    const asOf = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const preview = await ok(dps.api.GET('/retention-policy/preview', { params: { query: { as_of: asOf } } }));
    expect(preview.as_of).toBe(asOf);
    expect(Array.isArray(preview.data_versions)).toBe(true);
  });

  it('conversations: started, read, listed and deleted (the toggle is on for the tenant)', async () => {
    const { conversation_id } = await ok(dps.api.POST('/conversations'));
    const path = { conversation_id };
    expect(await ok(dps.api.GET('/conversations/{conversation_id}', { params: { path } }))).toMatchObject({
      conversation_id,
    });
    const listed: string[] = [];
    for await (const conversation of dps.list('/conversations')) listed.push(conversation.conversation_id);
    expect(listed).toEqual([conversation_id]);
    await ok(dps.api.DELETE('/conversations/{conversation_id}', { params: { path } }));
    expect(await ok(dps.api.GET('/conversations'))).toMatchObject({ total: 0 });
  });

  it('apps: a bundle created, read and listed', async () => {
    const bundle = await ok(dps.api.POST('/apps/bundles', { body: { name: 'sales board' } }));
    expect(bundle).toMatchObject({ name: 'sales board', published_version: null });
    expect(
      await ok(dps.api.GET('/apps/bundles/{bundle_id}', { params: { path: { bundle_id: bundle.id } } })),
    ).toMatchObject({ id: bundle.id, name: 'sales board' });
    expect(await ok(dps.api.GET('/apps/bundles'))).toMatchObject({ total: 1, items: [{ id: bundle.id }] });
  });

  it('tokens: a viewer token whose credentials read the tenant, listed, then deleted', async () => {
    const roles = await ok(dps.api.GET('/roles'));
    expect(roles.items.map((role) => role.name)).toContain('viewer');
    const expiration = new Date(Date.now() + 86_400_000).toISOString();
    const token = await ok(
      dps.api.POST('/tokens', { body: { description: 'reader', role_names: ['viewer'], expiration } }),
    );
    expect(token.secret).toEqual(expect.any(String));
    const reader = recordedClient({ credentials: { clientId: token.client_id, clientSecret: token.secret ?? '' } });
    expect(await ok(reader.api.GET('/data-tables'))).toMatchObject({ total: 1 });
    expect(await refusal(reader.api.POST('/datasets', { body: { name: 'not mine' } }))).toMatchObject({
      status: 403,
    });
    const path = { client_id: token.client_id };
    expect(await ok(dps.api.GET('/tokens/{client_id}', { params: { path } }))).toMatchObject({
      description: 'reader',
    });
    await ok(dps.api.DELETE('/tokens/{client_id}', { params: { path } }));
    const left: string[] = [];
    for await (const item of dps.list('/tokens')) left.push(item.client_id);
    expect(left).not.toContain(token.client_id);
  });

  it('quota: a contract made current, its usage measured against it', async () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const contract = await ok(
      dps.api.POST('/quota', {
        body: { name: 'this month', start_date: day(-1), end_date: day(29), cpu_time_hours: 10, data_transfer_gb: 5 },
      }),
    );
    expect(await ok(dps.api.GET('/quota'))).toMatchObject({ id: contract.id, name: 'this month' });
    const usage = await ok(dps.api.GET('/quota/usage'));
    expect(usage).toMatchObject({ contract_id: contract.id, start_date: day(-1), end_date: day(29) });
  });

  it('quality rules and schedules: listed once the platform admin turns their toggles on', async () => {
    for (const toggle of ['data_quality', 'schedules'] as const)
      await ok(
        platform.api.PUT('/admin/feature-toggles/{toggle_name}/tenants/{tenant_id}', {
          params: { path: { toggle_name: toggle, tenant_id: TENANT } },
          body: { strategy: 'on' },
        }),
      );
    await new Promise((resolve) => setTimeout(resolve, TOGGLE_CACHE_MS + 100));
    expect(await ok(dps.api.GET('/quality-rules'))).toMatchObject({ items: [], total: 0 });
    expect(await ok(dps.api.GET('/schedules'))).toMatchObject({ items: [], total: 0 });
  });

  it('reached every tag of the served OpenAPI document', async () => {
    const document = await ok(createDpsClient({ baseUrl: env.twin.apiUrl }).api.GET('/openapi.json'));
    const { paths } = document as { paths: Record<string, Record<string, { tags?: string[] }>> };
    const tagOf = new Map<string, string>();
    for (const [path, item] of Object.entries(paths))
      for (const [method, operation] of Object.entries(item))
        for (const tag of operation.tags ?? []) tagOf.set(`${method.toUpperCase()} ${path}`, tag);
    const allTags = new Set(tagOf.values());
    expect(allTags.size).toBeGreaterThan(10);
    const reachedTags = new Set([...reached].map((operation) => tagOf.get(operation)));
    expect([...allTags].filter((tag) => !reachedTags.has(tag)).sort(), 'tags no call of this file reached').toEqual([]);
  });
});
