/**
 * `npm run bench -- cost-jobs`: what each job kind's worker costs, per 1M rows or per job. The twin runs in a child
 * process (bench/cost-jobs-twin-process.ts) and hands every worker invocation to this process, where the worker runs
 * with the real SDK clients on the twin's stores, counted by the cost bench's meter (bench/cost-meter.ts) and timed
 * by this process's CPU clock and its engine processes' (bench/process-tree-cpu.ts). One run of each declared job
 * kind (functions/jobs.ts) at BENCH_COST_JOB_ROWS rows (200000): import, a recipe run (SELECT * over the table), a
 * FULL schema analysis of the data version and of the recipe node, a multi-part export, a direct export, an export
 * to a bucket target and a transfer to the pricing DIM fake of its output, and an app install and uninstall. A
 * declared job kind without a run here fails the bench.
 */
import { jobs } from '../functions/jobs';
import { logger } from '../shared/log';
import { ApiClient } from '../test/support/api-client';
import { exchangeToken } from '../test/support/harness';
import { ensureCsv } from './bench-csv';
import { installAndUninstall, targetExport, transfer, type JobBench } from './cost-jobs-runs';
import type { CostJobsChildMessage, CostJobsParentMessage } from './cost-jobs-protocol';
import { serveWorkers, type ServedWorkers, type WorkerCost } from './cost-jobs-workers';
import { installMeter } from './cost-meter';
import { SOURCE_BUCKET } from './import-protocol';
import { HTTP_MS, LOCAL_S3_CREDENTIALS, tableOverSource, upload, withImportTwin, withTimeout } from './import-twin';
import { pipelineRun, poll, releasedDataset } from './multipart-export';

const JOB_OF_WORKER = new Map(jobs.map((job) => [job.worker.name, job.name] as const));

/** Rows from which the multi-part export has two parts of at least 5 MiB but the last (about 14 MB of CSV at 200k). */
const MULTIPART_ROWS = 200_000;

/** Workers whose work does not grow with the rows: shown per job, not scaled. */
const FIXED_WORKERS = new Set(['provision-app', 'deprovision-app']);

/** The declared job kinds that have no row in `costs`: a new job must get a run in this bench. */
export function unmeasuredJobs(costs: readonly WorkerCost[]): string[] {
  const measured = new Set(costs.map((cost) => cost.job));
  return jobs.map((job) => job.name).filter((name) => !measured.has(name));
}

/** The twin process's answer to `environment`. */
function environmentOf(child: Parameters<typeof serveWorkers>[0]) {
  child.send({ type: 'environment' } satisfies CostJobsParentMessage);
  return new Promise<CostJobsChildMessage & { type: 'environment' }>((resolve) => {
    const listener = (received: CostJobsChildMessage) => {
      if (received.type !== 'environment') return;
      child.off('message', listener);
      resolve(received);
    };
    child.on('message', listener);
  });
}

/** FULL schema analyses of the imported version and of the recipe node: they have no status route to poll. */
async function schemaAnalyses(api: ApiClient, served: ServedWorkers, tableId: number, node: NodeParams) {
  const tableAnalysis = served.settled('analyse-schema');
  const version = { data_table_id: tableId, version_number: 1 };
  const started = await api.call('analyseDataVersionSchema', { params: version, body: { depth: 'FULL' } });
  if (started.status !== 202) throw new Error(`schema analysis: ${started.status} ${started.text}`);
  await withTimeout(tableAnalysis, 120_000, 'schema analysis');
  const nodeAnalysis = served.settled('analyse-node-schema');
  const analysed = await api.call('analyseDatasetNodeSchema', { params: node, body: { depth: 'FULL' } });
  if (analysed.status !== 202) throw new Error(`node analysis: ${analysed.status} ${analysed.text}`);
  await withTimeout(nodeAnalysis, 120_000, 'node schema analysis');
}

interface NodeParams {
  readonly dataset_id: number;
  readonly version_number: number;
  readonly node_id: number;
}

/** A direct export of the dataset's output as one Parquet file to the twin's source bucket. */
async function directExport(api: ApiClient, endpoint: string, datasetId: number): Promise<void> {
  const direct = await withTimeout(
    api.call('startDirectExport', {
      body: {
        source_type: 'dataset',
        source_id: datasetId,
        source_version: 1,
        bucket: SOURCE_BUCKET,
        key: 'exports/direct.parquet',
        endpoint,
        access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
        secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
        total_files: 1,
      },
    }),
    HTTP_MS,
    'startDirectExport',
  );
  if (direct.status !== 202) throw new Error(`direct export: ${direct.status} ${direct.text}`);
  await poll(
    'direct export',
    async () => (await api.call('getDirectExport', { params: { job_id: direct.body.job_id } })).body,
    (job) => job.status.status === 'COMPLETED',
    (job) => (job.status.status === 'FAILED' ? JSON.stringify(job.status) : undefined),
  );
}

/** Runs every job kind once at `rows` rows; answers each worker's cost. */
export async function measureJobCosts(rows: number): Promise<WorkerCost[]> {
  const csv = await ensureCsv(rows);
  return withImportTwin(
    'dps-bench-cost-jobs-',
    async ({ child, s3, api, ready }) => {
      const environment = await environmentOf(child);
      Object.assign(process.env, environment.environment);
      logger.setLogLevel('SILENT');
      const served = serveWorkers(child, installMeter(environment.s3Port));
      const admin = environment.platformAdmin;
      const idle = served.idle;
      const token = await withTimeout(
        exchangeToken(ready.apiUrl, admin.clientId, admin.clientSecret),
        HTTP_MS,
        'token',
      );
      const bench: JobBench = {
        api,
        platformAdmin: new ApiClient(ready.apiUrl, token, admin.tenantId),
        adminTenantId: environment.adminTenantId,
        ready,
        pricingDim: environment.pricingDim,
      };
      await upload(s3, SOURCE_BUCKET, 'orders/data.csv', csv.path, 'text/csv');
      const tableId = await tableOverSource(api, ready, 'orders', 'bench orders');
      const { datasetId, nodeId } = await releasedDataset(api, tableId);
      const node = { dataset_id: datasetId, version_number: 1, node_id: nodeId };
      const version = await api.call('getDataVersion', { params: { data_table_id: tableId, version_number: 1 } });
      served.recordCpu('import-data-version', version.body.execution.progress.cpu_seconds);
      // The run's own record of its CPU, the engine child's included.
      const run = await api.call('getDatasetNodeRunStatus', { params: node });
      served.recordCpu('run-recipe', run.body.metadata?.cpu_seconds);
      await idle();
      await schemaAnalyses(api, served, tableId, node);
      // Two parts where the rows fill them; one at a smoke run's few rows (bench/settings.ts).
      await idle();
      await pipelineRun(api, s3, datasetId, 'exports/multi.csv', rows >= MULTIPART_ROWS ? 2 : 1);
      await idle();
      await directExport(api, ready.s3Endpoint, datasetId);
      await idle();
      served.recordCpu('export-to-target', await targetExport(bench, { datasetId }));
      await idle();
      served.recordCpu('transfer-to-pricing', await transfer(bench, { datasetId }));
      await idle();
      const apps = await installAndUninstall(bench);
      served.recordCpu('provision-app', apps.install);
      served.recordCpu('deprovision-app', apps.uninstall);
      await idle();
      return [...served.costs].map(([worker, cost]) => {
        const recorded = served.recorded.get(worker);
        return {
          worker,
          job: JOB_OF_WORKER.get(worker) ?? worker,
          invocations: cost.invocations,
          processCpuSeconds: cost.cpu.selfSeconds,
          engineChildCpuSeconds: cost.cpu.childSeconds,
          ...(recorded === undefined ? {} : { recordedCpuSeconds: recorded }),
          tally: cost.tally,
          perRow: !FIXED_WORKERS.has(worker),
        };
      });
    },
    new URL('./cost-jobs-twin-process.ts', import.meta.url),
  );
}
