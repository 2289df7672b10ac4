import { connectionStore } from '../connections/store';
import { config } from '../config';
import { importJob } from '../data-tables/jobs';
import { dataVersions } from '../data-tables/versions';
import { graphs } from '../datasets/graphs';
import { recipeRunJob } from '../datasets/jobs';
import { outputAttribute, outputKindOf } from '../datasets/run-items';
import { nodeRuns } from '../datasets/runs';
import { outputNodeOf } from '../datasets/response';
import { directExportJob, multiPartExportJob, targetExportJob, type ExportShape } from '../exports/jobs';
import { exportStore } from '../exports/target-exports';
import { targetStore } from '../targets/store';
import { transferJob } from '../transfers/jobs';
import { transferStore } from '../transfers/store';
import type { JobRef } from '../jobs/job-ref';
import type { StoredNodeLineage } from '../model/stored-lineage';
import { serviceDatasets, type DatasetName } from '../openlineage/naming';
import { sourceObject } from '../datasets/lineage/source-object';
import type { EventType } from '../openlineage/events';
import type { ColumnSource, EventDataset, RunEventInput } from '../openlineage/build';
import { LINEAGE_JOB_KINDS } from '../openlineage/job-kinds';

/**
 * What each job that sends run events (job-kinds.ts) read and wrote, as OpenLineage datasets
 * (docs/lineage.md): an import reads its data source's object and writes a data table; a
 * recipe run reads data tables and upstream nodes and writes its nodes' outputs (with their
 * column lineage, as stored with the graph version); an export or a transfer reads a data
 * table or a graph version's output node and writes to its destination.
 */

const namespace = () => config.openLineage.namespace;
const table = (tenantId: string, id: number): DatasetName => serviceDatasets.dataTable(namespace(), tenantId, id);

/** The data table as its import wrote it: its columns, and the report of its data-quality rules when they ran. */
async function tableWithColumns(tenantId: string, id: number, version: number): Promise<EventDataset> {
  const found = await dataVersions.find(tenantId, id, version);
  const columns = found?.metadata?.columns.map(({ name, type }) => ({ name, type }));
  return {
    ...table(tenantId, id),
    ...(columns ? { columns } : {}),
    ...(found?.quality ? { quality: found.quality } : {}),
  };
}

async function describeImport(tenantId: string, params: unknown, eventType: EventType) {
  const { data_table_id: id, version_number: version } = importJob.params.parse(params);
  const source = await sourceObject(tenantId, id);
  const output = eventType === 'COMPLETE' ? await tableWithColumns(tenantId, id, version) : table(tenantId, id);
  return { inputs: source ? [{ namespace: source.namespace, name: source.name }] : [], outputs: [output] };
}

/** A node's output columns with what each reads: the stored lineage, upstream nodes named as datasets. */
function nodeDataset(
  tenantId: string,
  graph: {
    dataset_id: number;
    version_number: number;
    nodes: readonly { id: number; node_type: string; data_table_id?: number }[];
  },
  lineage: readonly StoredNodeLineage[],
  nodeId: number,
): EventDataset {
  const name = serviceDatasets.node(namespace(), tenantId, graph.dataset_id, graph.version_number, nodeId);
  const entry = lineage.find((candidate) => candidate.node_id === nodeId);
  if (!entry) return name;
  const datasetOf = (id: number): DatasetName => {
    const node = graph.nodes.find((candidate) => candidate.id === id);
    return node?.node_type === 'TABLE' && node.data_table_id !== undefined
      ? table(tenantId, node.data_table_id)
      : serviceDatasets.node(namespace(), tenantId, graph.dataset_id, graph.version_number, id);
  };
  const sources = (from: readonly { node_id: number; column: string; how: ColumnSource['how'] }[]) =>
    from.map(({ node_id, column, how }) => ({ dataset: datasetOf(node_id), field: column, how }));
  const fields = new Map(
    entry.columns.flatMap((column) => (column.name === null ? [] : [[column.name, sources(column.from)] as const])),
  );
  return {
    ...name,
    columns: entry.columns.flatMap((column) => (column.name === null ? [] : [{ name: column.name }])),
    lineage: { fields, dataset: sources(entry.indirect) },
  };
}

/**
 * Each built node's data-quality report, as this run checked its output (the output of the
 * run's kind, while it is still this run's): COMPLETE events carry them.
 */
async function reportsOfRun(
  tenantId: string,
  jobId: string,
  run: { dataset_id: number; version_number: number; use_sample: boolean },
) {
  const runs = await nodeRuns.list(tenantId, run.dataset_id, run.version_number);
  const attribute = outputAttribute(outputKindOf(run.use_sample));
  const reports = new Map<number, NonNullable<EventDataset['quality']>>();
  for (const [nodeId, item] of runs) {
    const output = item[attribute];
    if (output?.run_id === jobId && output.quality) reports.set(nodeId, output.quality);
  }
  return reports;
}

async function describeRecipeRun(tenantId: string, jobId: string, params: unknown, eventType: EventType) {
  const run = recipeRunJob.params.parse(params);
  const graph = await graphs.find(tenantId, run.dataset_id, run.version_number);
  const built = new Set(run.build.map((step) => step.node_id));
  const inputs = new Map<string, DatasetName>();
  for (const step of run.build)
    for (const source of step.inputs.sources) {
      const dataset =
        source.data_table_id !== undefined
          ? table(tenantId, source.data_table_id)
          : built.has(source.node_id)
            ? undefined
            : serviceDatasets.node(namespace(), tenantId, run.dataset_id, run.version_number, source.node_id);
      if (dataset) inputs.set(dataset.name, dataset);
    }
  const lineage = graph?.lineage ?? [];
  const reports =
    eventType === 'COMPLETE'
      ? await reportsOfRun(tenantId, jobId, run)
      : new Map<number, NonNullable<EventDataset['quality']>>();
  const outputs = run.build.map((step): EventDataset => {
    const dataset = graph
      ? nodeDataset(tenantId, graph, lineage, step.node_id)
      : serviceDatasets.node(namespace(), tenantId, run.dataset_id, run.version_number, step.node_id);
    const quality = reports.get(step.node_id);
    return quality ? { ...dataset, quality } : dataset;
  });
  return { inputs: [...inputs.values()], outputs };
}

/** What an export or a transfer reads: a data table, or the output node of a graph version. */
async function sourceDataset(tenantId: string, type: string, id: number, version: number): Promise<DatasetName> {
  if (type === 'datatable') return table(tenantId, id);
  const graph = await graphs.find(tenantId, id, version);
  const output = graph ? outputNodeOf(graph) : null;
  return serviceDatasets.node(namespace(), tenantId, id, version, output ?? 0);
}

/** An export's columns as written: each the source's column of that name, copied. */
function copiedColumns(source: DatasetName, destination: DatasetName, columns: readonly string[] | null): EventDataset {
  if (!columns) return destination;
  const fields = new Map(
    columns.map((column) => [column, [{ dataset: source, field: column, how: 'copied' as const }]]),
  );
  return { ...destination, columns: columns.map((name) => ({ name })), lineage: { fields, dataset: [] } };
}

async function describeExport(tenantId: string, job: JobRef, params: unknown) {
  const kind = job.kind;
  let shape: ExportShape;
  let destination: DatasetName;
  if (kind === directExportJob.name) {
    const direct = directExportJob.params.parse(params);
    shape = direct.shape;
    destination = { namespace: `s3://${direct.bucket}`, name: direct.key };
  } else if (kind === multiPartExportJob.name) {
    // The parts' URLs carry their signatures: the destination is named by the job, never by them.
    shape = multiPartExportJob.params.parse(params).shape;
    destination = { namespace: `${namespace()}/multi-part-uploads`, name: `${tenantId}/${job.job_id}` };
  } else {
    const target = targetExportJob.params.parse(params);
    shape = target.shape;
    destination = await targetDestination(tenantId, target.export_id);
  }
  const source = await sourceDataset(tenantId, shape.source_type, shape.source_id, shape.source_version);
  return { inputs: [source], outputs: [copiedColumns(source, destination, shape.columns)] };
}

async function targetDestination(tenantId: string, exportId: number): Promise<DatasetName> {
  const stored = await exportStore.find(tenantId, exportId);
  const target = stored && (await targetStore.find(tenantId, stored.data.target_id));
  const connection = target && (await connectionStore.find(tenantId, target.data.connection_id));
  const path = target?.data.path ?? '';
  const [bucket = '', ...rest] = path.split('/');
  if (connection?.data.type === 'object_store') return { namespace: `s3://${bucket}`, name: rest.join('/') };
  if (connection?.data.type === 'cloud_store') return { namespace: `gs://${bucket}`, name: rest.join('/') };
  return { namespace: `${namespace()}/targets`, name: `${tenantId}/targets/${target?.id ?? 0}` };
}

async function describeTransfer(tenantId: string, params: unknown) {
  const { transfer_id: id } = transferJob.params.parse(params);
  const transfer = await transferStore.get(tenantId, id);
  const connection = await connectionStore.find(tenantId, transfer.data.connection_id);
  const host = String(connection?.data.auth.host ?? 'unknown')
    .replace(/^https?:\/\//, '')
    .split('/')[0];
  const source = await sourceDataset(
    tenantId,
    transfer.data.source_type,
    transfer.data.source_id,
    transfer.data.source_version,
  );
  const destination = {
    namespace: `pricing://${host}`,
    name: `${transfer.data.project_path}/${transfer.data.table_path}`,
  };
  return {
    inputs: [source],
    outputs: [
      copiedColumns(
        source,
        destination,
        transfer.data.columns.map((column) => column.name),
      ),
    ],
  };
}

/** The event of `job` (a lineage job) at `eventType`; undefined for a job that sends none. */
export async function describeJob(
  eventType: EventType,
  job: JobRef,
  params: unknown,
  error?: { readonly code: string; readonly message: string },
): Promise<RunEventInput | undefined> {
  if (!LINEAGE_JOB_KINDS.has(job.kind)) return undefined;
  const tenantId = job.tenant_id;
  const datasets =
    job.kind === importJob.name
      ? await describeImport(tenantId, params, eventType)
      : job.kind === recipeRunJob.name
        ? await describeRecipeRun(tenantId, job.job_id, params, eventType)
        : job.kind === transferJob.name
          ? await describeTransfer(tenantId, params)
          : await describeExport(tenantId, job, params);
  return {
    eventType,
    jobId: job.job_id,
    kind: job.kind,
    tenantId,
    namespace: namespace(),
    ...datasets,
    ...(error ? { error } : {}),
  };
}
