/**
 * Data-quality rules end to end over HTTP (docs/data-quality.md): rules saved and refused,
 * an import that checks them and writes its report on the version (failing rows counted as a
 * plain DuckDB counts them over the version's Parquet), an error rule that blocks the
 * version's export and the release of a graph that reads it (90-1002, naming the rule), a
 * later version that passes and exports, an acceptance that unblocks the failed one, the
 * transfer of a failed version refused; rules on a recipe node checked by each run over its
 * output (counted as DuckDB counts them over the output's Parquet), blocking the version's
 * release and export until accepted or a later run passes, with the node's check history;
 * the toggle, and tenant isolation. Each rule kind's counting is proven in
 * test/unit/engine/quality-check.test.ts; this file is the path through the service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unchecked, type ApiClient } from '../../support/api-client';
import { BAD_CSV, checkedDataset, createRule, directExport, GOOD_CSV, tableRules, turnOn } from './quality-support';
import { DATA_BUCKET } from '../../../infra/local/twin';
import { getObject, queryFiles, sourceParquet, waitForDirectExport } from '../../support/exports';
import type { TestTwin } from '../../support/harness';
import { importAndWait, putObjects, tableOver } from '../../support/imports';
import { executeAndWait } from '../datasets/run-fixtures';
import {
  dimConnection,
  pricingTarget,
  startTransferStack,
  transferRequest,
  type TransferStack,
} from '../transfers/fixtures';

let stack: TransferStack;
let env: TestTwin;
let api: ApiClient;
let tableId: number;
const rules: Record<string, number> = {};

beforeAll(async () => {
  // The pricing system's fake is the cheap way to a pricing target (test/integration/transfers/fixtures.ts).
  stack = await startTransferStack({ buckets: ['landing', 'exports'] });
  env = stack.env;
  api = env.admin;
  await turnOn(env, env.admin.tenantId!);
  await putObjects(env, 'landing', { 'prices/a.csv': BAD_CSV });
  tableId = await tableOver(api, env, 'landing/prices/');
  Object.assign(rules, await tableRules(api, tableId));
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

describe('rules as a resource', () => {
  it('refuses a bad definition with 10-1400 naming the field, and SQL the analyzer refuses', async () => {
    const base = { name: 'bad', data_table_id: tableId, severity: 'warn' };
    const bounds = await api.call('createQualityRule', {
      body: unchecked({ ...base, kind: 'range', column: 'price' }),
    });
    expect(bounds.problem).toMatchObject({
      status: 400,
      code: '10-1400',
      extraDetails: { min: 'min or max is required' },
    });
    const crossed = await api.call('createQualityRule', {
      body: unchecked({ ...base, kind: 'range', column: 'price', min: 5, max: 1 }),
    });
    expect(crossed.problem.extraDetails).toEqual({ max: 'must not be less than min' });
    const noSeverity = await api.call('createQualityRule', {
      body: unchecked({ name: 'bad', data_table_id: tableId, kind: 'not_null', column: 'price' }),
    });
    expect(Object.keys(noSeverity.problem.extraDetails ?? {})).toEqual(['severity']);
    const pattern = await api.call('createQualityRule', {
      body: { ...base, severity: 'warn', kind: 'pattern', column: 'sku', pattern: '(unclosed' },
    });
    expect(pattern.problem.code).toBe('10-1400');
    expect(Object.keys(pattern.problem.extraDetails ?? {})).toEqual(['pattern']);
    const reader = await api.call('createQualityRule', {
      body: { ...base, severity: 'warn', kind: 'custom_sql', sql: "SELECT * FROM read_csv('/etc/passwd')" },
    });
    expect(reader.problem.code).toBe('40-50005');
    const otherTable = await api.call('createQualityRule', {
      body: { ...base, severity: 'warn', kind: 'custom_sql', sql: 'SELECT * FROM orders' },
    });
    expect(otherTable.problem.code).toMatch(/^(40-50006|20-1054)$/);
    const missing = await api.call('createQualityRule', {
      body: { ...base, severity: 'warn', kind: 'not_null', column: 'price', data_table_id: 999_999 },
    });
    expect(missing.problem.code).toBe('10-404');
  });

  it('lists with ListQuery, updates with lock_version, merges a field', async () => {
    const page = await api.call('listQualityRules', {
      query: { filter: `data_table_id eq ${tableId} and severity eq 'warn'`, sort: '-name', limit: 2 },
    });
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.body.items.map((rule) => rule.name)).toEqual(['sku unique', 'no negative price']);

    const extra = await createRule(api, {
      name: 'row count',
      kind: 'row_count_between',
      severity: 'warn',
      data_table_id: tableId,
      min: 1,
    });
    const read = (await api.call('getQualityRule', { params: { rule_id: extra } })).body;
    const stale = await api.call('updateQualityRule', {
      params: { rule_id: extra },
      body: { ...read, lock_version: read.lock_version + 1, kind: 'row_count_between', min: 1, max: 100 },
    });
    expect(stale.problem).toMatchObject({ status: 409, code: '10-1006' });
    const merged = await api.call('mergeQualityRule', {
      params: { rule_id: extra },
      body: { id: extra, lock_version: read.lock_version, kind: 'row_count_between', max: 100 },
    });
    expect(merged.body).toMatchObject({ min: 1, max: 100, lock_version: read.lock_version + 1 });
    const deleted = await api.call('deleteQualityRule', { params: { rule_id: extra } });
    expect(deleted.status).toBe(204);
  });
});

describe('an import checks the rules; an error rule blocks the version', () => {
  it('writes the report on the version, each failing count as DuckDB counts it over the version', async () => {
    const version = await importAndWait(api, tableId);
    expect(version.execution.status).toBe('COMPLETED');
    const quality = version.quality!;
    expect(quality.status).toBe('FAILED');
    const parquet = await sourceParquet(env, tableId, 1);
    const count = async (where: string) =>
      Number((await queryFiles([parquet], `SELECT count(*) AS n FROM f0 WHERE ${where}`)).rows[0]!.n);
    const byRule = new Map(quality.results.map((result) => [result.rule_id, result]));
    expect(byRule.get(rules.price!)).toMatchObject({
      rule_name: 'price present',
      severity: 'error',
      passed: false,
      failing_row_count: await count('price IS NULL'),
    });
    expect(byRule.get(rules.price!)!.failing_row_count).toBe(3);
    expect(byRule.get(rules.price!)!.sample_rows).toHaveLength(3);
    expect(byRule.get(rules.sku!)!.failing_row_count).toBe(
      await count('sku IN (SELECT sku FROM f0 GROUP BY sku HAVING count(*) > 1)'),
    );
    expect(byRule.get(rules.positive!)!.failing_row_count).toBe(await count('price < 0'));
    expect(byRule.get(rules.countries!)!.failing_row_count).toBe(await count("country NOT IN ('DE', 'FR', 'IT')"));
    // The table shows the same report on its latest version.
    const table = (await api.call('getDataTable', { params: { data_table_id: tableId } })).body;
    expect(table.latest_data_version?.quality).toEqual(quality);
  });

  it('refuses the export of the failed version with 90-1002 naming the rule', async () => {
    const refused = await directExport(env, 1, 'blocked/prices.parquet', { type: 'datatable', id: tableId });
    expect(refused.problem).toMatchObject({
      status: 409,
      code: '90-1002',
      extraDetails: { rule_name: 'price present', rule_id: rules.price, version_number: 1, failing_row_count: 3 },
    });
    expect(refused.problem.detail).toContain('price present');
  });

  it('refuses the transfer of the failed version with 90-1002 naming the rule', async () => {
    const target = await pricingTarget(api, await dimConnection(api, stack.dim));
    const request = transferRequest(target.id, { source_type: 'datatable', source_id: tableId, source_version: 1 });
    const refused = await api.call('startTransfer', { body: request });
    expect(refused.problem).toMatchObject({
      status: 409,
      code: '90-1002',
      extraDetails: { rule_name: 'price present', data_table_id: tableId, version_number: 1 },
    });
    expect((await api.call('listTransfers')).body.total).toBe(0);
  });

  it('refuses the release of a graph built on the failed version', async () => {
    const recipeId = (
      await api.call('createRecipe', {
        body: { name: 'prices', aliases: ['CurrentTable'], recipe_version: { code: 'SELECT * FROM CurrentTable' } },
      })
    ).body.id;
    const datasetId = (await api.call('createDataset', { body: { name: 'priced' } })).body.id;
    const graph = { dataset_id: datasetId, version_number: 1 };
    const tableNode = (
      await api.call('addDatasetNode', {
        params: graph,
        body: { node_type: 'TABLE', dataset_id: datasetId, data_table_id: tableId, data_table_version_number: 1 },
      })
    ).body.id;
    const recipeNode = (
      await api.call('addDatasetNode', {
        params: graph,
        body: {
          node_type: 'RECIPE',
          dataset_id: datasetId,
          recipe_id: recipeId,
          recipe_version_number: 1,
          source_node_definitions: [{ source_node_id: tableNode, alias: 'CurrentTable' }],
        },
      })
    ).body.id;
    expect((await executeAndWait(api, { datasetId }, recipeNode, false)).run_state).toBe('SUCCEEDED');
    const refused = await api.call('releaseDatasetVersion', { params: graph });
    expect(refused.problem).toMatchObject({
      status: 409,
      code: '90-1002',
      extraDetails: { rule_name: 'price present' },
    });

    // Accepted by a user with quality:accept (an admin; an editor may not), the version releases and exports.
    const editor = await env.clientFor(env.admin.tenantId!, ['editor']);
    const forbidden = await editor.call('acceptQualityFailure', {
      params: { data_table_id: tableId, version_number: 1 },
      body: {},
    });
    expect(forbidden.problem).toMatchObject({ status: 403, code: '10-403' });
    const accepted = await api.call('acceptQualityFailure', {
      params: { data_table_id: tableId, version_number: 1 },
      body: { reason: 'prices backfilled downstream' },
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.quality).toMatchObject({
      status: 'FAILED',
      accepted: { reason: 'prices backfilled downstream', by: { id: env.twin.admin.client_id } },
    });
    expect((await api.call('releaseDatasetVersion', { params: graph })).status).toBe(200);
    const exported = await directExport(env, 1, 'accepted/prices.parquet', { type: 'datatable', id: tableId });
    expect(exported.status, exported.text).toBe(202);
    expect((await waitForDirectExport(api, exported.body.job_id)).status.status).toBe('COMPLETED');
  });

  it('a later version that passes exports at once', async () => {
    await putObjects(env, 'landing', { 'prices/a.csv': GOOD_CSV });
    const version = await importAndWait(api, tableId);
    expect(version.quality).toMatchObject({ status: 'PASSED', accepted: null });
    expect(version.quality!.results.every((result) => result.passed && result.failing_row_count === 0)).toBe(true);
    const exported = await directExport(env, version.version_number, 'passed/prices.parquet', {
      type: 'datatable',
      id: tableId,
    });
    expect(exported.status, exported.text).toBe(202);
    expect((await waitForDirectExport(api, exported.body.job_id)).status.status).toBe('COMPLETED');
    // Nothing failed, so nothing to accept.
    const nothing = await api.call('acceptQualityFailure', {
      params: { data_table_id: tableId, version_number: version.version_number },
      body: {},
    });
    expect(nothing.problem).toMatchObject({ status: 409, code: '90-1003', extraDetails: { status: 'PASSED' } });
  });
});

describe('rules on a recipe node, checked by each run over its output', () => {
  let datasetId: number;
  let nodeId: number;
  let tableNodeId: number;
  let priceRule: number;
  const graph = () => ({ dataset_id: datasetId, version_number: 1 });

  beforeAll(async () => {
    ({ datasetId, tableNodeId, nodeId } = await checkedDataset(api, tableId));
  });

  it('saves rules on a recipe node, and refuses one target too many or a node that is not a recipe', async () => {
    const node = { dataset_id: datasetId, node_id: nodeId } as const;
    priceRule = await createRule(api, {
      ...node,
      name: 'price at most 8',
      kind: 'range',
      severity: 'error',
      column: 'price',
      max: 8,
    });
    await createRule(api, {
      ...node,
      name: 'two-letter country',
      kind: 'pattern',
      severity: 'warn',
      column: 'country',
      pattern: '[A-Z]{2}',
    });
    const listed = await api.call('listQualityRules', {
      query: { filter: `dataset_id eq ${datasetId} and node_id eq ${nodeId}` },
    });
    expect(listed.body.items.map((rule) => [rule.name, rule.data_table_id])).toEqual([
      ['price at most 8', null],
      ['two-letter country', null],
    ]);
    const base = { name: 'bad node rule', kind: 'not_null', severity: 'warn', column: 'price' } as const;
    const both = await api.call('createQualityRule', { body: { ...base, ...node, data_table_id: tableId } });
    expect(both.problem).toMatchObject({ status: 400, code: '10-1400' });
    expect(Object.keys(both.problem.extraDetails ?? {})).toEqual(['dataset_id']);
    const half = await api.call('createQualityRule', { body: { ...base, dataset_id: datasetId } });
    expect(half.problem.extraDetails).toEqual({ node_id: 'is required with dataset_id' });
    const tableNode = await api.call('createQualityRule', {
      body: { ...base, dataset_id: datasetId, node_id: tableNodeId },
    });
    expect(Object.keys(tableNode.problem.extraDetails ?? {})).toEqual(['node_id']);
    const missing = await api.call('createQualityRule', { body: { ...base, dataset_id: 999_999, node_id: nodeId } });
    expect(missing.problem.code).toBe('10-404');
  });

  it('a run writes the report in the node’s status, counted as DuckDB counts over the output, and its history', async () => {
    const status = await executeAndWait(api, { datasetId }, nodeId, false);
    expect(status.run_state).toBe('SUCCEEDED');
    const output = await getObject(
      env,
      DATA_BUCKET,
      `${env.twin.admin.tenant_id}/datasets/${datasetId}/g1/nodes/${nodeId}/full/data.parquet`,
    );
    const counted = await queryFiles([output], 'SELECT count(*) AS n FROM f0 WHERE price > 8');
    const byRule = new Map(status.quality!.results.map((result) => [result.rule_name, result]));
    expect(status.quality!.status).toBe('FAILED');
    expect(byRule.get('price at most 8')).toMatchObject({
      rule_id: priceRule,
      passed: false,
      failing_row_count: Number(counted.rows[0]!.n),
    });
    expect(byRule.get('price at most 8')!.failing_row_count).toBe(1);
    expect(byRule.get('two-letter country')).toMatchObject({ passed: true, failing_row_count: 0 });
    const history = await api.call('listNodeQualityChecks', { params: { ...graph(), node_id: nodeId } });
    expect(history.body.items).toHaveLength(1);
    expect(history.body.items[0]).toMatchObject({
      status: 'FAILED',
      use_sample: false,
      run_id: status.execution!.job_id,
    });
  });

  it('refuses the release and the export of the failed output with 90-1002 naming the rule, until accepted', async () => {
    const released = await api.call('releaseDatasetVersion', { params: graph() });
    expect(released.problem).toMatchObject({
      status: 409,
      code: '90-1002',
      extraDetails: { rule_name: 'price at most 8', dataset_id: datasetId, node_id: nodeId, failing_row_count: 1 },
    });
    const source = { type: 'dataset', id: datasetId } as const;
    expect((await directExport(env, 1, 'node/blocked.parquet', source)).problem.code).toBe('90-1002');

    const editor = await env.clientFor(env.admin.tenantId!, ['editor']);
    const forbidden = await editor.call('acceptNodeQualityFailure', {
      params: { ...graph(), node_id: nodeId },
      body: {},
    });
    expect(forbidden.problem).toMatchObject({ status: 403, code: '10-403' });
    const accepted = await api.call('acceptNodeQualityFailure', {
      params: { ...graph(), node_id: nodeId },
      body: { reason: 'one premium sku' },
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'FAILED', accepted: { reason: 'one premium sku' } });
    const history = await api.call('listNodeQualityChecks', { params: { ...graph(), node_id: nodeId } });
    expect(history.body.items[0]!.accepted).toMatchObject({ reason: 'one premium sku' });
    const exported = await directExport(env, 1, 'node/accepted.parquet', source);
    expect(exported.status, exported.text).toBe(202);
    expect((await waitForDirectExport(api, exported.body.job_id)).status.status).toBe('COMPLETED');
  });

  it('a later run that passes releases, judged on its own report', async () => {
    // Every price at most 8 (and the table's own rules pass): the node reads this version now.
    await putObjects(env, 'landing', { 'prices/a.csv': 'sku,price,country\n1,5,DE\n2,4,FR\n' });
    expect((await importAndWait(api, tableId)).quality?.status).toBe('PASSED');
    const status = await executeAndWait(api, { datasetId }, nodeId, false);
    expect(status.quality).toMatchObject({ status: 'PASSED', accepted: null });
    expect((await api.call('releaseDatasetVersion', { params: graph() })).status).toBe(200);
    const history = await api.call('listNodeQualityChecks', {
      params: { ...graph(), node_id: nodeId },
      query: { sort: '-checked_date', filter: "status eq 'PASSED'" },
    });
    expect(history.body).toMatchObject({ total: 1, items: [{ status: 'PASSED' }] });
  });
});

describe('the toggle and other tenants', () => {
  it('answers 10-1501 while the toggle is off for the tenant, and hides another tenant’s rules', async () => {
    const other = await env.clientFor('quality-other', ['admin']);
    const off = await other.call('listQualityRules');
    expect(off.problem).toMatchObject({ status: 501, code: '10-1501' });
    expect(off.problem.detail).toContain('data_quality');
    const create = await other.call('createQualityRule', {
      body: { name: 'x', kind: 'not_null', column: 'price', severity: 'warn', data_table_id: tableId },
    });
    expect(create.problem.code).toBe('10-1501');

    await turnOn(env, 'quality-other');
    expect((await other.call('listQualityRules')).body.total).toBe(0);
    expect((await other.call('getQualityRule', { params: { rule_id: rules.price! } })).problem.code).toBe('10-404');
    // Another tenant's table does not exist for it.
    const foreign = await other.call('createQualityRule', {
      body: { name: 'x', kind: 'not_null', column: 'price', severity: 'warn', data_table_id: tableId },
    });
    expect(foreign.problem.code).toBe('10-404');
  });
});
