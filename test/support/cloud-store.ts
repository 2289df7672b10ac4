/**
 * The world of the cloud_store tests: the GCS JSON API fake with its Google token services,
 * an identity provider for workload identity federation, and a twin whose connectors reach
 * both (allow-listed, GCS_* settings pointing at the fake). Bucket acme_raw of project
 * acme-analytics holds CSV files; `loader` (a key) and `federated` (impersonated through
 * the federation) may read it, and `loader` may list the project's buckets.
 */
import { expect } from 'vitest';
import { GcsFake } from '../fakes/gcs';
import { startOAuthFake, type OAuthFake } from '../../infra/local/fakes/oauth';
import type { ApiClient, RequestBody } from './api-client';
import { startTestTwin, type TestTwin } from './harness';

export const PROJECT = 'acme-analytics';
export const AUDIENCE =
  '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/data-prep/providers/idp';
export const FEDERATED = `federated@${PROJECT}.iam.gserviceaccount.com`;

const HEADER = 'id,name,amount,region';
const row = (id: number) => `${id},name ${id},${(id * 1.25).toFixed(2)},${id % 2 === 0 ? 'EU' : 'US'}`;

/** CSV of the rows from..to (header included). */
export const csv = (from: number, to: number) =>
  `${HEADER}\n${Array.from({ length: to - from + 1 }, (_, index) => row(from + index)).join('\n')}\n`;

/** The rows of csv(from, to) as a preview shows them. */
export const expectedRows = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, index) => {
    const id = from + index;
    return { id, name: `name ${id}`, amount: Number((id * 1.25).toFixed(2)), region: id % 2 === 0 ? 'EU' : 'US' };
  });

export interface ServiceAccount {
  readonly email: string;
  readonly keyJson: string;
}

export interface CloudStoreWorld {
  readonly env: TestTwin;
  readonly api: ApiClient;
  readonly gcs: GcsFake;
  readonly idp: OAuthFake;
  readonly loader: ServiceAccount;
  close(): Promise<void>;
}

export async function startCloudStoreWorld(environment: Readonly<Record<string, string>>): Promise<CloudStoreWorld> {
  const gcs = await GcsFake.start();
  const idp = await startOAuthFake({
    clients: [{ clientId: 'data-prep', clientSecret: 'idp-secret', scopes: [] }],
    style: 'generic',
    path: '/oauth2/token',
  });
  const loader = gcs.auth.addServiceAccount({ project: PROJECT });
  gcs.auth.addImpersonationTarget(FEDERATED);
  gcs.auth.addFederation({
    audience: AUDIENCE,
    isSubjectToken: (token) => idp.isIssued(token),
    serviceAccounts: [FEDERATED],
  });
  gcs.allowBucketListing(PROJECT, loader.email);
  gcs.addBucket('acme_raw', {
    project: PROJECT,
    grants: { [loader.email]: 'reader', [FEDERATED]: 'reader' },
    objects: {
      'landing/': '',
      'landing/sales/2024-01.csv': csv(1, 60),
      'landing/sales/archive/2024-02.csv': csv(61, 100),
      'landing/sales/readme.txt': 'not data',
      'landing/docs/notes.txt': 'no CSV here',
    },
  });
  const env = await startTestTwin({
    allowOutbound: [gcs.allowOutbound, `127.0.0.1:${idp.port}`],
    environment: { ...gcs.environment, ...environment },
    retryIntervalMs: 10,
  });
  return {
    env,
    api: env.admin,
    gcs,
    idp,
    loader,
    async close() {
      await env.close();
      await gcs.close();
      await idp.close();
    },
  };
}

export type CloudStoreRequest = Extract<RequestBody<'createConnection'>, { type: 'cloud_store' }>;

let sequence = 0;

export function serviceAccountRequest(keyJson: string, pathRestriction?: string): CloudStoreRequest {
  return {
    name: `gcs key ${process.pid}-${++sequence}`,
    type: 'cloud_store',
    auth: { auth_type: 'service_account_key', file_name: 'key.json', service_account_key_json: keyJson },
    ...(pathRestriction ? { path_restriction: pathRestriction } : {}),
  };
}

/** A workload identity connection restricted to acme_raw/landing/, with `overrides` of its auth. */
export function federatedRequest(
  world: CloudStoreWorld,
  overrides: Partial<Record<'client_secret' | 'audience' | 'service_account_email', string>> = {},
): CloudStoreRequest {
  return {
    name: `gcs federated ${process.pid}-${++sequence}`,
    type: 'cloud_store',
    auth: {
      auth_type: 'workload_identity',
      client_id: 'data-prep',
      client_secret: overrides.client_secret ?? 'idp-secret',
      token_url: world.idp.tokenUrl,
      scope: 'https://www.googleapis.com/auth/devstorage.read_only',
      service_account_email: overrides.service_account_email ?? FEDERATED,
      audience: overrides.audience ?? AUDIENCE,
      project_id: PROJECT,
    },
    path_restriction: 'acme_raw/landing/',
  };
}

export async function createConnection(api: ApiClient, request: CloudStoreRequest): Promise<number> {
  const response = await api.call('createConnection', { body: request });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}
