import { dataTableStore } from '../data-tables/store';
import { dataVersions, notReady } from '../data-tables/versions';
import { VERSION_FILES, versionPrefix } from '../data-tables/storage';
import { graphs } from '../datasets/graphs';
import { releasableOutputOf } from '../datasets/release';
import { outputAttribute, outputKindOf } from '../datasets/run-items';
import { NODE_OUTPUT_FILES, nodeOutputPrefix } from '../datasets/run-storage';
import { nodeRuns } from '../datasets/runs';
import { datasetStore } from '../datasets/store';
import { AppError, isAppError } from '../errors/app-error';
import { refuseIfAborted } from '../jobs/cancel';
import { refuseIfOutputQualityFailed, refuseIfQualityFailed } from '../quality/gate';
import type { ColumnSchema } from '../model/columns';
import type { ExportSourceType } from '../model/export';

/** What an export reads, as a request names it. */
export interface ExportSourceRequest {
  readonly source_type: ExportSourceType;
  readonly source_id: number;
  readonly source_version: number;
  readonly use_sample: boolean;
  /** For a dataset source: refuse a draft version (20-1016). */
  readonly validate_release: boolean;
}

/** A source ready to be exported: its name, the Parquet file to read and its schema. */
export interface ExportSource {
  /** The data table's (or dataset's) name: {dataset_name} of a target's destination. */
  readonly name: string;
  /** Key of the Parquet file in the service's data bucket. */
  readonly dataKey: string;
  readonly columns: readonly ColumnSchema[];
  /** Rows of the file, as the import or run that wrote it counted them; a data table's sample is not counted. */
  readonly rows: number | undefined;
  /**
   * Bytes of the file as stored (its data_bytes): what the job's state machine weighs to run it
   * on Lambda or Fargate (shared/jobs/launch.ts). 0 for a data table's sample, which is not
   * measured and holds at most 10,000 rows.
   */
  readonly bytes: number;
}

/**
 * The one place where an export's source is resolved, for every kind of export and for both
 * the request (which checks it) and the worker (which reads it).
 *
 * - datatable: the version must be COMPLETED (20-1029 while it is created, 20-1059 when it
 *   failed); its data.parquet, or sample.parquet for a sample export.
 * - dataset: the version must exist (10-404) and, with validate_release, be released
 *   (20-1016). What is exported is the output of its output node (the one free recipe node
 *   a release publishes): that node must have run successfully (20-1019: no such node, never
 *   run, or no output left by its runs), on the sample for a sample export (20-1017) and on
 *   full data for a full one (20-1018); its `<tenant>/datasets/<id>/g<v>/nodes/<node>/
 *   {sample,full}/data.parquet` as the latest successful run of that kind wrote it.
 */
export async function exportSourceOf(tenantId: string, request: ExportSourceRequest): Promise<ExportSource> {
  if (request.source_type === 'datatable') {
    const version = await dataVersions.get(tenantId, request.source_id, request.source_version);
    if (version.execution.status !== 'COMPLETED' || !version.metadata) throw notReady(request.source_id, version);
    // An error rule the version failed stops every export and transfer of it until accepted (90-1002).
    await refuseIfQualityFailed(tenantId, version);
    const prefix = versionPrefix(tenantId, request.source_id, request.source_version);
    const table = await dataTableStore.get(tenantId, request.source_id);
    return {
      name: table.data.name,
      dataKey: prefix + (request.use_sample ? VERSION_FILES.sample : VERSION_FILES.data),
      columns: version.metadata.columns,
      rows: request.use_sample ? undefined : version.metadata.row_count,
      bytes: request.use_sample ? 0 : version.metadata.data_bytes,
    };
  }
  const graph = await graphs.get(tenantId, request.source_id, request.source_version);
  if (request.validate_release && !graph.release_status) throw new AppError('20-1016');
  const output = outputNodeOf(graph);
  const run = await nodeRuns.find(tenantId, request.source_id, request.source_version, output.id);
  const kind = outputKindOf(request.use_sample);
  // The node's last run of this kind was cancelled: it left no output of it (10-444).
  if (run && !run[outputAttribute(kind)] && run.use_sample === request.use_sample) refuseIfAborted(run.execution);
  if (!run?.sample_output && !run?.full_output) throw new AppError('20-1019');
  const built = run[outputAttribute(kind)];
  if (!built) throw new AppError(request.use_sample ? '20-1017' : '20-1018');
  // An error rule of the node that its output failed stops the export and transfer of it until accepted (90-1002).
  await refuseIfOutputQualityFailed(tenantId, {
    dataset_id: request.source_id,
    version_number: request.source_version,
    node_id: output.id,
    use_sample: request.use_sample,
    output: built,
  });
  const dataset = await datasetStore.get(tenantId, request.source_id);
  return {
    name: dataset.data.name,
    dataKey:
      nodeOutputPrefix(tenantId, request.source_id, request.source_version, output.id, kind) + NODE_OUTPUT_FILES.data,
    columns: built.columns,
    rows: built.row_count,
    bytes: built.data_bytes,
  };
}

/** The node a dataset version exports; a graph without one has no node that could have run (20-1019). */
function outputNodeOf(graph: Parameters<typeof releasableOutputOf>[0]): ReturnType<typeof releasableOutputOf> {
  try {
    return releasableOutputOf(graph);
  } catch (error) {
    if (isAppError(error)) throw new AppError('20-1019', { cause: error });
    throw error;
  }
}

/**
 * The columns an export writes, in the order asked; null for every column. A name the source
 * does not have is 422 20-1031 naming it.
 */
export function exportColumns(source: ExportSource, asked: readonly string[] | undefined): string[] | null {
  if (!asked) return null;
  const known = new Set(source.columns.map((column) => column.name));
  const unknown = asked.find((name) => !known.has(name));
  if (unknown !== undefined) throw new AppError('20-1031', { params: [unknown] });
  return [...asked];
}

/**
 * The source as the worker finds it when it runs: a source deleted since the request is
 * 30-6001 (the request itself answered 10-404).
 */
export async function exportSourceAtRunTime(tenantId: string, request: ExportSourceRequest): Promise<ExportSource> {
  try {
    return await exportSourceOf(tenantId, request);
  } catch (error) {
    if (isAppError(error) && error.code === '10-404') throw new AppError('30-6001', { cause: error });
    throw error;
  }
}
