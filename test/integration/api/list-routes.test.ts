/**
 * Spec 2.2: every list takes ListQuery. This walks the route table: every route that answers a
 * list envelope is asked for its second record alone (`offset=1&limit=1`, with blank `sort` and
 * `filter`) and must answer it, the same record the whole list holds second, with the envelope
 * saying so. A list route added later without a fixture here fails the coverage check (and,
 * declared without ListQuery, does not compile: shared/http/route.ts). Issue 38:
 * `GET /admin/feature-toggles?limit=1000` and `GET /apps/links?sort=` were refused as unknown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { routes } from '../../../functions/routes';
import type { OperationId } from '../../../functions/routes';
import { BigQueryFake } from '../../fakes/bigquery';
import { asBody, type ApiClient, type ResponseBody } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  createBucketSource,
  createObjectStoreConnection,
  createTable,
  putObjects,
  startImport,
  waitForVersion,
} from '../../support/imports';
import { createTarget } from '../targets/fixtures';

/** Operations whose answer is a list envelope (spec 2.2), the common or the recipes one. */
type ListOperation = {
  [O in OperationId]: ResponseBody<O> extends { readonly items: readonly unknown[] } ? O : never;
}[OperationId];

/** Where a list is asked: its path parameters, and how many records the fixture made sure it holds. */
interface ListFixture {
  readonly params?: Readonly<Record<string, string | number>>;
  readonly atLeast: number;
}

const PROJECT = 'acme-analytics';
let env: TestTwin;
let api: ApiClient;
let bigquery: BigQueryFake;
let fixtures: { readonly [O in ListOperation]: ListFixture };

const created = <T>(response: { status: number; text: string; body: T }, status = 201): T => {
  expect(response.status, response.text).toBe(status);
  return response.body;
};

async function toggleOn(toggle: 'apps' | 'transfers' | 'ai_assistant' | 'data_quality' | 'schedules'): Promise<void> {
  const tenantId = env.admin.tenantId!;
  created(
    await env.platformAdmin.call('setFeatureToggleOverride', {
      params: { toggle_name: toggle, tenant_id: tenantId },
      body: { strategy: 'on' },
    }),
    200,
  );
}

beforeAll(async () => {
  bigquery = await BigQueryFake.start();
  const reader = bigquery.auth.addServiceAccount({ project: PROJECT });
  bigquery.addDataset(PROJECT, 'sales', [reader.email]);
  for (const name of ['orders', 'customers'])
    bigquery.addTable(PROJECT, 'sales', name, { schema: [{ name: 'id', type: 'INT64' }], rows: [] });
  env = await startTestTwin({
    buckets: ['walk'],
    allowOutbound: [bigquery.allowOutbound],
    // A model endpoint makes the assistant available; listing conversations never calls it.
    environment: { ...bigquery.environment, ASSISTANT_CHAT_ENDPOINT: 'http://127.0.0.1:9' },
  });
  api = env.admin;
  await Promise.all([
    toggleOn('apps'),
    toggleOn('transfers'),
    toggleOn('ai_assistant'),
    toggleOn('data_quality'),
    toggleOn('schedules'),
  ]);

  // Two of each, where a list is of the tenant's own records.
  await putObjects(env, 'walk', { 'data/a.csv': 'id,name\n1,a\n2,b\n' });
  const connectionId = await createObjectStoreConnection(api, env);
  await createObjectStoreConnection(api, env);
  const sourceId = await createBucketSource(api, connectionId, 'walk/data/');
  await createBucketSource(api, connectionId, 'walk/data/');
  const tableId = await createTable(api, sourceId);
  await createTable(api, sourceId);
  // One import at a time per table (20-1029 otherwise).
  for (let count = 0; count < 2; count += 1) await waitForVersion(api, tableId, await startImport(api, tableId));

  const analytics = created(
    await api.call('createConnection', {
      body: asBody('createConnection', {
        name: 'walked analytics',
        type: 'analytics_db',
        auth: { auth_type: 'service_account_key', file_name: 'key.json', service_account_key_json: reader.keyJson },
        dataset_id: 'sales',
      }),
    }),
  );

  const recipe = { aliases: ['CurrentTable'], recipe_version: { code: 'SELECT * FROM CurrentTable' } };
  const recipeId = created(await api.call('createRecipe', { body: { name: 'walked recipe', ...recipe } })).id;
  created(await api.call('createRecipe', { body: { name: 'walked recipe 2', ...recipe } }));
  created(
    await api.call('createRecipeVersion', {
      params: { recipe_id: recipeId },
      body: { code: 'SELECT 1 AS one FROM CurrentTable', aliases: ['CurrentTable'] },
    }),
  );

  const datasetId = created(await api.call('createDataset', { body: { name: 'walked dataset' } })).id;
  created(await api.call('createDataset', { body: { name: 'walked dataset 2' } }));
  // Two nodes of recipe version 1 (its two usages), each over a table node, then a second graph version.
  const graph = { dataset_id: datasetId, version_number: 1 };
  for (let count = 0; count < 2; count += 1) {
    // A table node feeds one node only (20-1050).
    const tableNode = created(
      await api.call('addDatasetNode', {
        params: graph,
        body: { node_type: 'TABLE', dataset_id: datasetId, data_table_id: tableId },
      }),
    ).id;
    created(
      await api.call('addDatasetNode', {
        params: graph,
        body: {
          node_type: 'RECIPE',
          dataset_id: datasetId,
          recipe_id: recipeId,
          recipe_version_number: 1,
          source_node_definitions: [{ source_node_id: tableNode, alias: 'CurrentTable' }],
        },
      }),
    );
  }
  created(
    await api.call('createDatasetVersion', { params: { dataset_id: datasetId }, body: { dataset_id: datasetId } }),
  );

  await createTarget(api, env.twin.s3.endpoint, 'bucket');
  await createTarget(api, env.twin.s3.endpoint, 'bucket');
  const every = { type: 'cron', expression: '* * * * *', time_zone: 'UTC' } as const;
  const scheduleId = created(
    await api.call('createSchedule', { body: { name: 'walked schedule', dataset_id: datasetId, trigger: every } }),
  ).id;
  created(
    await api.call('createSchedule', {
      body: { name: 'walked schedule 2', dataset_id: datasetId, trigger: every, paused: true },
    }),
  );
  // Two ticks, two history entries (a build, then another or a skip while it runs).
  await env.twin.scheduler.advance(2 * 60_000);
  for (const column of ['id', 'name'])
    created(
      await api.call('createQualityRule', {
        body: { name: `walked rule ${column}`, kind: 'not_null', data_table_id: tableId, severity: 'warn', column },
      }),
    );

  for (const name of ['walked one', 'walked two']) created(await api.call('createAppBundle', { body: { name } }));
  for (const link of ['crm', 'erp'])
    created(await api.call('putAppLink', { params: { link_id: link }, body: { details: { region: 'eu' } } }), 200);

  created(
    await api.call('createToken', { body: { description: 'walked', role_names: ['viewer'], expiration: 'P1D' } }),
  );
  for (const [month, name] of [
    ['01', 'walked contract'],
    ['03', 'walked contract 2'],
  ] as const)
    created(
      await api.call('createQuotaContract', {
        body: {
          name,
          start_date: `2095-${month}-01`,
          end_date: `2095-${month}-20`,
          cpu_time_hours: 1,
          data_transfer_gb: 1,
        },
      }),
    );
  created(await env.platformAdmin.call('createTenant', { body: { tenant_id: 'walked', name: 'Walked' } }));

  fixtures = {
    listConnections: { atLeast: 3 },
    listConnectionTables: { params: { connection_id: analytics.id }, atLeast: 2 },
    listDataSources: { atLeast: 2 },
    listDataTables: { atLeast: 2 },
    listDataVersions: { params: { data_table_id: tableId }, atLeast: 2 },
    listRecipes: { atLeast: 2 },
    listRecipeVersions: { params: { recipe_id: recipeId }, atLeast: 2 },
    listRecipeVersionUsages: { params: { recipe_id: recipeId, version_number: 1 }, atLeast: 2 },
    listDatasets: { atLeast: 2 },
    listDatasetVersions: { params: { dataset_id: datasetId }, atLeast: 2 },
    listTargets: { atLeast: 2 },
    listQualityRules: { atLeast: 2 },
    // A node's checks are written by its runs: the walk checks that they take ListQuery.
    listNodeQualityChecks: { params: { dataset_id: datasetId, version_number: 1, node_id: 1 }, atLeast: 0 },
    listSchedules: { atLeast: 2 },
    listScheduleRuns: { params: { schedule_id: scheduleId }, atLeast: 2 },
    // Exports, transfers and conversations are made by jobs or a model: the walk checks that they take ListQuery.
    listExports: { atLeast: 0 },
    listTransfers: { atLeast: 0 },
    listConversations: { atLeast: 0 },
    listAppBundles: { atLeast: 2 },
    listAppLinks: { atLeast: 2 },
    listTokens: { atLeast: 3 },
    listRoles: { atLeast: 2 },
    listQuotaContracts: { atLeast: 2 },
    listFeatureToggles: { atLeast: 2 },
    listTenants: { atLeast: 2 },
  };
}, 180_000);

afterAll(async () => {
  await env?.close();
  await bigquery?.close();
});

/** The routes whose response schema is a list envelope, read from the table itself. */
function listRoutes() {
  return routes.filter((route) => {
    const body = route.response.body;
    return body instanceof z.ZodObject && 'items' in body.shape;
  });
}

const Envelope = z.object({
  offset: z.int().optional(),
  limit: z.int().optional(),
  total: z.int().optional(),
  total_count: z.int().optional(),
  page_size: z.int().optional(),
  page_number: z.int().optional(),
  items: z.array(z.unknown()),
});

function pathOf(template: string, params: Readonly<Record<string, string | number>> = {}): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
}

/** The client that may read the list: the admin plane's lists are the platform admin's. */
const callerOf = (path: string) => (path.startsWith('/admin/') ? env.platformAdmin : api);

describe('every list route takes ListQuery (spec 2.2)', () => {
  it('the walk has a fixture for every list route of the route table, and no other', () => {
    const listed = listRoutes().map((route) => route.operationId);
    expect(listed.length).toBeGreaterThan(15);
    expect(Object.keys(fixtures).sort()).toEqual([...listed].sort());
  });

  it.each(listRoutes().map((route) => [route.operationId, route] as const))(
    '%s honours offset and limit, with blank sort and filter',
    async (operationId, route) => {
      const fixture = fixtures[operationId as ListOperation];
      const path = pathOf(route.path, fixture.params);
      const caller = callerOf(route.path);
      const whole = await caller.raw('GET', `${path}?limit=1000`);
      expect(whole.status, whole.text).toBe(200);
      const all = Envelope.parse(whole.json);
      const total = all.total ?? all.total_count ?? -1;
      expect(total).toBe(all.items.length);
      expect(total).toBeGreaterThanOrEqual(fixture.atLeast);

      const paged = await caller.raw('GET', `${path}?offset=1&limit=1&sort=&filter=`);
      expect(paged.status, paged.text).toBe(200);
      route.response.body?.parse(paged.json);
      const page = Envelope.parse(paged.json);
      expect(page.items).toEqual(all.items.slice(1, 2));
      if (page.total_count === undefined) expect(page).toMatchObject({ offset: 1, limit: page.items.length, total });
      else expect(page).toMatchObject({ total_count: total, page_size: 1, page_number: 1 });
    },
  );
});
