/**
 * What the data-quality tests (quality.test.ts) share: the table's two files, the toggle, a
 * rule's creation, a direct export, and a dataset checked by a recipe node.
 */
import { expect } from 'vitest';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import type { ApiClient, RequestBody } from '../../support/api-client';
import type { TestTwin } from '../../support/harness';
import { tableRecipeGraph } from '../datasets/run-fixtures';

/** 12 rows: 3 without a price, one negative price, sku 3 twice. */
export const BAD_CSV = [
  'sku,price,country',
  '1,10.5,DE',
  '2,,FR',
  '3,7,IT',
  '3,8,IT',
  '4,-2,DE',
  '5,,DE',
  '6,3,XX',
  '7,4,FR',
  '8,,FR',
  '9,5,DE',
  '10,6,IT',
  '11,9,DE',
].join('\n');
export const GOOD_CSV = 'sku,price,country\n1,10.5,DE\n2,4,FR\n3,7,IT\n';

export async function turnOn(env: TestTwin, tenantId: string): Promise<void> {
  await env.setFeature('data_quality', tenantId, 'on');
}

export async function createRule(api: ApiClient, body: RequestBody<'createQualityRule'>): Promise<number> {
  const created = await api.call('createQualityRule', { body });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

export function directExport(
  env: TestTwin,
  version: number,
  key: string,
  source: { type: 'datatable' | 'dataset'; id: number },
) {
  const api = env.admin;
  return api.call('startDirectExport', {
    body: {
      source_type: source.type,
      source_id: source.id,
      source_version: version,
      validate_release: false,
      bucket: 'exports',
      key,
      endpoint: env.twin.s3.endpoint,
      access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
      secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
    },
  });
}

/**
 * A dataset whose version 1 reads the table's latest version (a TABLE node with no version)
 * through one recipe node that selects every column of it.
 */
export async function checkedDataset(
  api: ApiClient,
  tableId: number,
): Promise<{ datasetId: number; tableNodeId: number; nodeId: number }> {
  const recipeId = (
    await api.call('createRecipe', {
      body: { name: 'checked', aliases: ['CurrentTable'], recipe_version: { code: 'SELECT * FROM CurrentTable' } },
    })
  ).body.id;
  // The table's latest version when the node runs.
  const graph = await tableRecipeGraph(api, {
    tableId,
    recipeId,
    alias: 'CurrentTable',
    name: 'checked',
    tableVersion: null,
  });
  return { datasetId: graph.datasetId, tableNodeId: graph.tableNode, nodeId: graph.recipeNode };
}

/** The table's four rules, by what they check: price present (error), sku unique, no negative price, known countries (warn). */
export async function tableRules(api: ApiClient, tableId: number): Promise<Record<string, number>> {
  const common = { data_table_id: tableId } as const;
  const price = await createRule(api, {
    ...common,
    name: 'price present',
    kind: 'not_null',
    severity: 'error',
    column: 'price',
  });
  const sku = await createRule(api, {
    ...common,
    name: 'sku unique',
    kind: 'unique',
    severity: 'warn',
    columns: ['sku'],
  });
  const positive = await createRule(api, {
    ...common,
    name: 'no negative price',
    kind: 'custom_sql',
    severity: 'warn',
    sql: 'SELECT * FROM CurrentTable WHERE price < 0',
  });
  const countries = await createRule(api, {
    ...common,
    name: 'known countries',
    kind: 'accepted_values',
    severity: 'warn',
    column: 'country',
    values: ['DE', 'FR', 'IT'],
  });
  return { price, sku, positive, countries };
}
