/**
 * The analytics_db reader called directly (what the import worker calls), against the BigQuery
 * fake through @google-cloud/bigquery: the table's project and dataset checked against the
 * connection at read time, a silent BigQuery bounded by the connector timeout, and a stopped
 * import that cancels the view's running query job.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SourceConnection } from '../../../shared/connectors/configuration';
import type { FetchOptions } from '../../../shared/connectors/source-types';
import { fetchSource } from '../../../shared/data-sources/fetch';
import type { DataSourceData } from '../../../shared/data-sources/store';
import { AppError } from '../../../shared/errors/app-error';
import { BigQueryFake } from '../../fakes/bigquery';

const PROJECT = 'acme-analytics';
const ENVIRONMENT_NAMES = [
  'OUTBOUND_ALLOW_LIST',
  'BIGQUERY_API_ENDPOINT',
  'GOOGLE_STS_ENDPOINT',
  'GOOGLE_IAM_CREDENTIALS_ENDPOINT',
  'CONNECTOR_TIMEOUT_MS',
] as const;

let bigquery: BigQueryFake;
let loader: { readonly email: string; readonly keyJson: string };
const saved = { ...process.env };
const workDirs: string[] = [];

beforeAll(async () => {
  bigquery = await BigQueryFake.start();
  loader = bigquery.auth.addServiceAccount({ project: PROJECT });
  bigquery.addDataset(PROJECT, 'sales', [loader.email]);
  bigquery.jobs.allowJobs(PROJECT, loader.email);
  bigquery.addTable(PROJECT, 'sales', 'orders', {
    schema: [{ name: 'id', type: 'INTEGER' }],
    rows: [{ id: '1' }, { id: '2' }],
  });
  bigquery.addTable(PROJECT, 'sales', 'daily', {
    type: 'VIEW',
    schema: [{ name: 'id', type: 'INTEGER' }],
    rows: [{ id: '7' }],
  });
  process.env.OUTBOUND_ALLOW_LIST = bigquery.allowOutbound;
  Object.assign(process.env, bigquery.environment);
});

afterEach(() => {
  process.env.CONNECTOR_TIMEOUT_MS = saved.CONNECTOR_TIMEOUT_MS ?? '';
  if (saved.CONNECTOR_TIMEOUT_MS === undefined) delete process.env.CONNECTOR_TIMEOUT_MS;
  bigquery.jobs.runningPolls = 1;
  bigquery.pageRows = 1000;
});

afterAll(async () => {
  for (const name of ENVIRONMENT_NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await bigquery?.close();
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

function connection(datasetId: string | null = 'sales', keyJson = loader.keyJson): SourceConnection {
  return {
    type: 'analytics_db',
    auth: { auth_type: 'service_account_key', file_name: 'key.json' },
    secret: keyJson,
    settings: { dataset_id: datasetId },
  };
}

function tableSource(tableRef: string): DataSourceData {
  return {
    type: 'analytics_db',
    connection_id: 1,
    path: null,
    query: null,
    warehouse: null,
    share: null,
    schema: null,
    table: null,
    table_ref: tableRef,
  } as DataSourceData;
}

function fetchOptions(signal = new AbortController().signal): FetchOptions {
  const workDir = mkdtempSync(join(tmpdir(), 'bq-source-'));
  workDirs.push(workDir);
  return { workDir, signal, onProgress: () => undefined };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  );
}

describe('reading an analytics_db data source', () => {
  it('writes the table’s rows as JSON lines with the schema they are loaded with', async () => {
    const fetched = await fetchSource(connection(), tableSource(`${PROJECT}.sales.orders`), fetchOptions());
    expect(fetched.columns).toEqual([{ name: 'id', type: { kind: 'scalar', sql: 'BIGINT' } }]);
    expect(fetched.files).toHaveLength(1);
    expect(readFileSync(fetched.files[0]!.localPath, 'utf8')).toBe('{"id":"1"}\n{"id":"2"}\n');
    expect(fetched.bytesRead).toBe(22);
  });

  it('30-1421 and 30-1422 when the connection no longer holds the table’s project or dataset, before any BigQuery call', async () => {
    const other = bigquery.auth.addServiceAccount({ project: 'acme-other', name: 'other' });
    const before = bigquery.requests.length;
    expect(
      await failureOf(
        fetchSource(connection('sales', other.keyJson), tableSource(`${PROJECT}.sales.orders`), fetchOptions()),
      ),
    ).toMatchObject({
      code: '30-1421',
      message: `Project ${PROJECT} in tableRef does not match connection project acme-other`,
    });
    expect(
      await failureOf(fetchSource(connection('marketing'), tableSource(`${PROJECT}.sales.orders`), fetchOptions())),
    ).toMatchObject({
      code: '30-1422',
      message: 'Dataset sales in tableRef does not match connection dataset marketing',
    });
    expect(bigquery.requests.length).toBe(before);
  });

  it('30-1413 within the connector timeout when BigQuery stays silent', async () => {
    process.env.CONNECTOR_TIMEOUT_MS = '300';
    bigquery.inject('hang', /\/tables\/orders\/data$/);
    const started = Date.now();
    const error = await failureOf(fetchSource(connection(), tableSource(`${PROJECT}.sales.orders`), fetchOptions()));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: '30-1413', extraDetails: { provider_error: 'timeout' } });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a stopped import rethrows the stop’s reason while a page is on its way', async () => {
    bigquery.pageRows = 1;
    bigquery.inject('hang', /\/tables\/orders\/data$/, 1, 1);
    const controller = new AbortController();
    const reason = new Error('job stopped');
    const pending = fetchSource(connection(), tableSource(`${PROJECT}.sales.orders`), fetchOptions(controller.signal));
    setTimeout(() => controller.abort(reason), 300);
    expect(await failureOf(pending)).toBe(reason);
  });

  it('a stopped import rethrows the stop’s reason and cancels the view’s running query job', async () => {
    bigquery.jobs.runningPolls = 1_000;
    const cancelled = bigquery.jobs.cancelledJobs;
    const controller = new AbortController();
    const reason = new Error('job stopped');
    const pending = fetchSource(connection(), tableSource(`${PROJECT}.sales.daily`), fetchOptions(controller.signal));
    setTimeout(() => controller.abort(reason), 400);
    expect(await failureOf(pending)).toBe(reason);
    expect(bigquery.jobs.cancelledJobs).toBe(cancelled + 1);
  });
});
