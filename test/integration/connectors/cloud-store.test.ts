/**
 * cloud_store end to end over HTTP on the twin, against the GCS JSON API fake and the Google
 * token services it mounts (test/fakes/gcs.ts), through @google-cloud/storage: connection →
 * test → browse → bucket data source → import → preview equal to the fake's rows, with a
 * service-account key and with workload identity federation (an identity provider of its own,
 * infra/local/fakes/oauth.ts). Failures: cloud-store-failures.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import {
  FEDERATED,
  PROJECT,
  createConnection,
  csv,
  expectedRows,
  federatedRequest,
  serviceAccountRequest,
  startCloudStoreWorld,
  type CloudStoreRequest,
  type CloudStoreWorld,
  type ServiceAccount,
} from '../../support/cloud-store';
import { createBucketSource, createTable, importAndWait } from '../../support/imports';
import type { GcsFake } from '../../fakes/gcs';
import type { OAuthFake } from '../../../infra/local/fakes/oauth';

let world: CloudStoreWorld;
let api: ApiClient;
let gcs: GcsFake;
let idp: OAuthFake;
let loader: ServiceAccount;

beforeAll(async () => {
  world = await startCloudStoreWorld({ CONNECTOR_TIMEOUT_MS: '2000' });
  ({ api, gcs, idp, loader } = world);
});

afterAll(async () => {
  await world?.close();
});

const create = (request: CloudStoreRequest) => createConnection(api, request);
const serviceAccountConnection = (keyJson: string, pathRestriction?: string) =>
  serviceAccountRequest(keyJson, pathRestriction);
const federatedConnection = () => federatedRequest(world);

const browse = (connectionId: number, body: { path: string; continuation_token?: string; max_items?: number }) =>
  api.call('browseConnection', { params: { connection_id: connectionId }, body });

describe('cloud_store with a service-account key', () => {
  let connectionId: number;

  beforeAll(async () => {
    connectionId = await create(serviceAccountConnection(loader.keyJson, 'acme_raw/landing/'));
  });

  it('tests the configuration and the stored connection by listing inside the restriction', async () => {
    const before = gcs.requests.length;
    const unsaved = await api.call('testConnection', {
      body: serviceAccountConnection(loader.keyJson, 'acme_raw/landing/'),
    });
    expect(unsaved.status, unsaved.text).toBe(200);
    expect(unsaved.body).toMatchObject({
      type: 'cloud_store',
      path_restriction: 'acme_raw/landing/',
      auth: { auth_type: 'service_account_key' },
    });
    const stored = await api.call('testStoredConnection', {
      params: { connection_id: connectionId },
      body: { type: 'cloud_store' },
    });
    expect(stored.status, stored.text).toBe(200);
    // The key's JWT assertion went to its token_uri, and the listing carried the token it gave.
    const calls = gcs.requests.slice(before);
    expect(calls.filter((call) => call.path === '/token')).toHaveLength(2);
    const listings = calls.filter((call) => call.path === '/storage/v1/b/acme_raw/o');
    expect(listings.map((call) => [call.principal, call.query.get('prefix'), call.query.get('delimiter')])).toEqual([
      [loader.email, 'landing/', '/'],
      [loader.email, 'landing/', '/'],
    ]);
  });

  it('tests without a restriction by listing the project’s buckets', async () => {
    const response = await api.call('testConnection', { body: serviceAccountConnection(loader.keyJson) });
    expect(response.status, response.text).toBe(200);
    expect(gcs.requests.at(-1)).toMatchObject({ path: '/storage/v1/b', principal: loader.email });
    expect(gcs.requests.at(-1)?.query.get('project')).toBe(PROJECT);
  });

  it('browses one folder level in the object_store shape, page by page', async () => {
    const root = await browse(connectionId, { path: 'acme_raw/landing/' });
    expect(root.status, root.text).toBe(200);
    expect(root.body.folders).toEqual([
      { name: 'docs', path: 'acme_raw/landing/docs/' },
      { name: 'sales', path: 'acme_raw/landing/sales/' },
    ]);
    expect(root.body.files).toEqual([]);
    expect(root.body.metadata).toEqual({
      bucket: 'acme_raw',
      prefix: 'landing/',
      path: 'acme_raw/landing/',
      truncated: false,
      next_continuation_token: null,
      key_count: 2,
    });

    const first = await browse(connectionId, { path: 'acme_raw/landing/sales/', max_items: 2 });
    expect(first.body.folders).toEqual([{ name: 'archive', path: 'acme_raw/landing/sales/archive/' }]);
    expect(first.body.files).toEqual([
      {
        name: '2024-01.csv',
        path: 'acme_raw/landing/sales/2024-01.csv',
        size: Buffer.byteLength(csv(1, 60)),
        last_modified: expect.any(String),
      },
    ]);
    expect(first.body.metadata).toMatchObject({
      truncated: true,
      key_count: 2,
      next_continuation_token: expect.any(String),
    });
    const second = await browse(connectionId, {
      path: 'acme_raw/landing/sales/',
      max_items: 2,
      continuation_token: first.body.metadata.next_continuation_token!,
    });
    expect(second.body.files.map((file) => file.name)).toEqual(['readme.txt']);
    expect(second.body.metadata).toMatchObject({ truncated: false, next_continuation_token: null, key_count: 1 });
  });

  it('imports every CSV below a folder; the preview equals the fake’s rows', async () => {
    const tableId = await createTable(api, await createBucketSource(api, connectionId, 'acme_raw/landing/sales/'));
    const version = await importAndWait(api, tableId);
    expect(version.execution, JSON.stringify(version.execution)).toMatchObject({ status: 'COMPLETED' });
    expect(version.metadata).toMatchObject({ row_count: 100, source_files: 2 });
    const preview = await api.call('previewDataVersion', {
      params: { data_table_id: tableId, version_number: version.version_number },
    });
    expect(preview.status, preview.text).toBe(200);
    expect([...preview.body.rows].sort((a, b) => Number(a.id) - Number(b.id))).toEqual(expectedRows(1, 100));
    expect(preview.body.columns.map((column) => column.name)).toEqual(['id', 'name', 'amount', 'region']);
    const table = await api.call('getDataTable', { params: { data_table_id: tableId } });
    expect(table.body.connection_details).toMatchObject({ connection_type: 'cloud_store', data_source_type: 'bucket' });
  });
});

describe('cloud_store with workload identity federation', () => {
  it('exchanges the identity provider’s token through STS and impersonation, then tests, browses and imports', async () => {
    const idpCalls = idp.requests.length;
    const tested = await api.call('testConnection', { body: federatedConnection() });
    expect(tested.status, tested.text).toBe(200);
    expect(idp.requests.slice(idpCalls)).toEqual([
      { authentication: 'basic', clientId: 'data-prep', grantType: 'client_credentials', scope: null },
    ]);
    const exchange = gcs.requests
      .filter((call) => call.path === '/v1/token' || call.path.endsWith(':generateAccessToken'))
      .slice(-2);
    expect(exchange.map((call) => call.path)).toEqual([
      '/v1/token',
      `/v1/projects/-/serviceAccounts/${encodeURIComponent(FEDERATED)}:generateAccessToken`,
    ]);
    expect(gcs.requests.at(-1)?.principal).toBe(FEDERATED);

    const connectionId = await create(federatedConnection());
    const listing = await browse(connectionId, { path: 'acme_raw/landing/sales/archive/' });
    expect(listing.body.files.map((file) => file.path)).toEqual(['acme_raw/landing/sales/archive/2024-02.csv']);

    const tableId = await createTable(
      api,
      await createBucketSource(api, connectionId, 'acme_raw/landing/sales/archive/2024-02.csv'),
    );
    const version = await importAndWait(api, tableId);
    expect(version.execution, JSON.stringify(version.execution)).toMatchObject({ status: 'COMPLETED' });
    const preview = await api.call('previewDataVersion', {
      params: { data_table_id: tableId, version_number: version.version_number },
    });
    expect([...preview.body.rows].sort((a, b) => Number(a.id) - Number(b.id))).toEqual(expectedRows(61, 100));
  });
});
