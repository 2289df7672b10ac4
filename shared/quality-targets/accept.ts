import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import { allOf, is } from '../db/expressions';
import { keys } from '../db/keys';
import { updateItem } from '../db/table';
import { LATEST_VERSION } from '../data-tables/items';
import { dataVersions } from '../data-tables/versions';
import { outputAttribute, outputKindOf } from '../datasets/run-items';
import { nodeRunItems, nodeRuns } from '../datasets/runs';
import { AppError, versionConflict } from '../errors/app-error';
import { requireFeature } from '../features/store';
import { acceptNodeCheck } from '../quality/node-history';

/** 409 90-1003: what the user would accept has no FAILED report (none yet, or it passed or warned). */
function nothingToAccept(what: string, status: string, names: Record<string, number | boolean>): AppError {
  return new AppError('90-1003', { params: [what, status], extraDetails: { ...names, status } });
}

/**
 * A user with `quality:accept` accepts the FAILED data-quality report of a version
 * (docs/data-quality.md): the version may then be released, exported and transferred as if it
 * had passed; the report keeps its results and says who accepted it, when and why. Accepting
 * again changes nothing. The write is conditional on the report being the one read, and the
 * table's copy of its latest version follows when this version is it.
 */
export async function acceptQualityFailure(
  principal: Principal,
  dataTableId: number,
  versionNumber: number,
  reason: string | null,
): Promise<void> {
  const { tenantId } = principal;
  await requireFeature(tenantId, 'data_quality');
  const version = await dataVersions.get(tenantId, dataTableId, versionNumber);
  const report = version.quality;
  if (!report || report.status !== 'FAILED')
    throw nothingToAccept(`data table ${dataTableId} version ${versionNumber}`, report?.status ?? 'NOT_CHECKED', {
      data_table_id: dataTableId,
      version_number: versionNumber,
    });
  if (report.accepted) return;
  const accepted = { by: actorOf(principal), date: new Date().toISOString(), reason };
  const sameReport = (path: string) =>
    allOf(is.equal(`${path}quality.checked_date`, report.checked_date), is.equal(`${path}quality.status`, 'FAILED'));
  const written = await updateItem(
    keys.version(tenantId, 'DATA_TABLE', dataTableId, versionNumber),
    { set: { 'quality.accepted': accepted } },
    sameReport(''),
  );
  if (!written) throw versionConflict();
  // The table's copy, when it is of this version (a newer import may have replaced it since: then nothing to follow).
  await updateItem(
    keys.entity(tenantId, 'DATA_TABLE', dataTableId),
    { set: { [`${LATEST_VERSION}.quality.accepted`]: accepted } },
    allOf(is.equal(`${LATEST_VERSION}.version_number`, versionNumber), sameReport(`${LATEST_VERSION}.`)),
  );
}

/** The node output whose FAILED report a user accepts. */
export interface AcceptedOutput {
  readonly datasetId: number;
  readonly graphVersion: number;
  readonly nodeId: number;
  readonly useSample: boolean;
}

/**
 * A user with `quality:accept` accepts the FAILED data-quality report of a recipe node's
 * current output (docs/data-quality.md): it may then be released, exported and transferred;
 * the report keeps its results and says who accepted it, when and why, and so does the
 * check's entry in the node's history. The write is conditional on the output being the one
 * read (a run that rewrote it since is judged on its own report). Accepting again changes
 * nothing.
 */
export async function acceptNodeQualityFailure(
  principal: Principal,
  at: AcceptedOutput,
  reason: string | null,
): Promise<void> {
  const { tenantId } = principal;
  await requireFeature(tenantId, 'data_quality');
  const run = await nodeRuns.find(tenantId, at.datasetId, at.graphVersion, at.nodeId);
  const attribute = outputAttribute(outputKindOf(at.useSample));
  const output = run?.[attribute];
  const report = output?.quality;
  if (!output || !report || report.status !== 'FAILED')
    throw nothingToAccept(`node ${at.nodeId}'s output`, output ? (report?.status ?? 'NOT_CHECKED') : 'NO_OUTPUT', {
      dataset_id: at.datasetId,
      version_number: at.graphVersion,
      node_id: at.nodeId,
      use_sample: at.useSample,
    });
  if (report.accepted) return;
  const accepted = { by: actorOf(principal), date: new Date().toISOString(), reason };
  const written = await updateItem(
    keys.nodeRun(tenantId, at.datasetId, at.graphVersion, at.nodeId),
    nodeRunItems.changes({ set: { [`${attribute}.quality.accepted`]: accepted } }),
    allOf(
      is.equal(`${attribute}.run_id`, output.run_id),
      is.equal(`${attribute}.quality.checked_date`, report.checked_date),
    ),
  );
  if (!written) throw versionConflict();
  await acceptNodeCheck(
    tenantId,
    {
      dataset_id: at.datasetId,
      version_number: at.graphVersion,
      node_id: at.nodeId,
      checked_date: report.checked_date,
      run_id: output.run_id,
      use_sample: at.useSample,
    },
    accepted,
  );
}
