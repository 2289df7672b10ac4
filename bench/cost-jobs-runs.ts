/**
 * The jobs of the cost bench (bench/cost-jobs.ts) that write outside the service or have no rows: an export to a
 * bucket target, a transfer to the pricing DIM fake, an app install and its uninstall. Each is started over the
 * twin's HTTP API like a client would, polled to its end, and its recorded cpu_seconds handed back.
 */
import { TOGGLE_CACHE_MS } from '../shared/features/store';
import type { JobExecution } from '../shared/model/job';
import type { ApiClient } from '../test/support/api-client';
import { sampleFiles } from '../test/support/app-files';
import { TARGET_BUCKET, type PricingDimEndpoint } from './cost-jobs-protocol';
import type { ImportTwinReady } from './import-protocol';
import { createdId, HTTP_MS, LOCAL_S3_CREDENTIALS, sleep, withTimeout } from './import-twin';
import { poll } from './multipart-export';

/** What the jobs run on: the admin's client, the platform admin's (for the toggles) and the pricing fake. */
export interface JobBench {
  readonly api: ApiClient;
  readonly platformAdmin: ApiClient;
  readonly adminTenantId: string;
  readonly ready: ImportTwinReady;
  readonly pricingDim: PricingDimEndpoint;
}

/** The released dataset version every export reads. */
export interface ReleasedSource {
  readonly datasetId: number;
}

/** Polls a job's execution until it ends; fails unless COMPLETED. Answers its recorded cpu_seconds. */
async function completed(
  what: string,
  read: () => Promise<JobExecution | null | undefined>,
): Promise<number | undefined> {
  const execution = await poll(
    what,
    read,
    (job) => job?.status === 'COMPLETED',
    (job) => (job?.status === 'FAILED' ? JSON.stringify(job.error) : undefined),
  );
  return execution?.progress.cpu_seconds;
}

/** Turns `toggle` on for the admin's tenant and waits until every cached snapshot of the toggles sees it. */
async function turnOn(bench: JobBench, toggle: 'transfers' | 'apps'): Promise<void> {
  const on = await bench.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: toggle, tenant_id: bench.adminTenantId },
    body: { strategy: 'on' },
  });
  if (on.status !== 200) throw new Error(`toggle ${toggle}: ${on.status} ${on.text}`);
  await sleep(TOGGLE_CACHE_MS + 100);
}

/** An export of the dataset's output as Parquet to a bucket target in the twin's second bucket. */
export async function targetExport(bench: JobBench, source: ReleasedSource): Promise<number | undefined> {
  const { api, ready } = bench;
  const connectionId = await createdId(
    'createConnection',
    api.call('createConnection', {
      body: {
        name: 'bench target store',
        type: 'object_store',
        auth: { auth_type: 'secret_key', ...keys(), endpoint: ready.s3Endpoint },
        write: true,
      },
    }),
  );
  const targetId = await createdId(
    'createTarget',
    api.call('createTarget', {
      body: {
        name: 'bench lake',
        type: 'bucket',
        connection_id: connectionId,
        path: `${TARGET_BUCKET}/{dataset_name}/`,
      },
    }),
  );
  const started = await withTimeout(
    api.call('createExport', {
      body: { target_id: targetId, source_type: 'dataset', source_id: source.datasetId, source_version: 1 },
    }),
    HTTP_MS,
    'createExport',
  );
  if (started.status !== 202) throw new Error(`target export: ${started.status} ${started.text}`);
  const exportId = started.body.export_id;
  return completed(
    'target export',
    async () => (await api.call('getExport', { params: { export_id: exportId } })).body.execution,
  );
}

function keys() {
  return { access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId, secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey };
}

/** A transfer of the dataset's output to a pricing target on the DIM fake (the transfers toggle on first). */
export async function transfer(bench: JobBench, source: ReleasedSource): Promise<number | undefined> {
  const { api, pricingDim: dim } = bench;
  await turnOn(bench, 'transfers');
  const connectionId = await createdId(
    'createConnection',
    api.call('createConnection', {
      body: {
        name: 'bench pricing',
        type: 'pricing_dim',
        auth: {
          auth_type: 'oauth_client_credentials',
          token_url: dim.tokenUrl,
          client_id: dim.clientId,
          client_secret: dim.clientSecret,
          scope: dim.scope,
          host: dim.host,
        },
      },
    }),
  );
  const targetId = await createdId(
    'createTarget',
    api.call('createTarget', {
      body: {
        name: 'bench prices',
        type: 'pricing',
        connection_id: connectionId,
        project_path: '\\Pricing\\Bench',
        table_path: 'Prices\\Orders\\',
      },
    }),
  );
  const started = await withTimeout(
    api.call('startTransfer', {
      body: { target_id: targetId, source_type: 'dataset', source_id: source.datasetId, source_version: 1 },
    }),
    HTTP_MS,
    'startTransfer',
  );
  if (started.status !== 202) throw new Error(`transfer: ${started.status} ${started.text}`);
  const transferId = started.body.transfer_id;
  return completed(
    'transfer',
    async () => (await api.call('getTransfer', { params: { transfer_id: transferId } })).body.execution,
  );
}

/** The sample app published as a bundle, installed, then uninstalled: each job's recorded cpu_seconds. */
export async function installAndUninstall(
  bench: JobBench,
): Promise<{ readonly install: number | undefined; readonly uninstall: number | undefined }> {
  const { api } = bench;
  await turnOn(bench, 'apps');
  const bundleId = await createdId('createAppBundle', api.call('createAppBundle', { body: { name: 'bench app' } }));
  const uploaded = await api.call('uploadAppBundleVersion', {
    params: { bundle_id: bundleId },
    body: { files: sampleFiles() },
  });
  if (uploaded.status !== 201) throw new Error(`bundle upload: ${uploaded.status} ${uploaded.text}`);
  const published = await api.call('publishAppBundleVersion', { params: { bundle_id: bundleId, version_number: 1 } });
  if (published.status !== 200) throw new Error(`bundle publish: ${published.status} ${published.text}`);
  const installState = async () => (await api.call('getAppInstall', { params: { bundle_id: bundleId } })).body;
  const install = await api.call('installApp', { body: { bundle_id: bundleId } });
  if (install.status !== 202) throw new Error(`install: ${install.status} ${install.text}`);
  const installCpu = await completed('install', async () => (await installState()).execution);
  const uninstall = await api.call('uninstallApp', { params: { bundle_id: bundleId } });
  if (uninstall.status !== 202) throw new Error(`uninstall: ${uninstall.status} ${uninstall.text}`);
  const uninstallCpu = await completed('uninstall', async () => {
    const state = await installState();
    // The install's execution until the uninstall's job is recorded: only the latter ends the wait.
    return state.execution?.job_id.startsWith('uninstall-app-') ? state.execution : undefined;
  });
  return { install: installCpu, uninstall: uninstallCpu };
}
