import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import { allOf, is } from '../db/expressions';
import { keys } from '../db/keys';
import { updateItem } from '../db/table';
import { LATEST_VERSION } from '../data-tables/items';
import { dataVersions } from '../data-tables/versions';
import { versionConflict, validationError } from '../errors/app-error';
import { requireFeature } from '../features/store';

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
    throw validationError({ version_number: 'has no FAILED data-quality report to accept' });
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
