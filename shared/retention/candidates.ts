import { dataTableStore } from '../data-tables/store';
import { dataVersions } from '../data-tables/versions';
import { graphs } from '../datasets/graphs';
import { datasetStore } from '../datasets/store';
import { isAppError } from '../errors/app-error';
import type { RetentionPolicyRule } from '../model/retention';
import type { DeletedThing } from './deletions';
import { dataVersionExpiration, graphExpiration, hasExpired, newestCompletedOf } from '../retention-policy/expiry';

/** A version whose expiration_date has come: what a sweep deletes. */
export interface Expired {
  readonly subject: DeletedThing;
  /** The data table or the dataset. */
  readonly parent_id: number;
  readonly version_number: number;
  readonly expiration_date: string;
}

/** The versions of a data table that have expired at `asOf`, read from the table's own items. */
export async function expiredDataVersions(
  tenantId: string,
  dataTableId: number,
  rule: RetentionPolicyRule | undefined,
  asOf: number,
): Promise<Expired[]> {
  const versions = await dataVersions.list(tenantId, dataTableId);
  const kept = newestCompletedOf(versions);
  return versions.flatMap((version) => {
    const expiration = dataVersionExpiration(version, rule, kept);
    if (!hasExpired(expiration, asOf)) return [];
    const { version_number } = version;
    return [{ subject: 'DATA_VERSION' as const, parent_id: dataTableId, version_number, expiration_date: expiration }];
  });
}

/** The graph versions of a dataset that have expired at `asOf`; none when the dataset is gone. */
export async function expiredGraphs(
  tenantId: string,
  datasetId: number,
  rule: RetentionPolicyRule | undefined,
  asOf: number,
): Promise<Expired[]> {
  const all = await graphs.list(tenantId, datasetId).catch((error: unknown) => {
    if (isAppError(error) && error.code === '10-404') return [];
    throw error;
  });
  const latest = all.at(-1)?.version_number;
  return all.flatMap((graph) => {
    const expiration = graphExpiration(graph, rule, latest);
    if (!hasExpired(expiration, asOf)) return [];
    const { version_number } = graph;
    return [
      { subject: 'TRANSFORMATION_GRAPH' as const, parent_id: datasetId, version_number, expiration_date: expiration },
    ];
  });
}

/** Whether `thing` is still expired at `asOf` (a sweep finishing another's deletion checks again). */
export async function isStillExpired(
  tenantId: string,
  thing: Pick<Expired, 'subject' | 'parent_id' | 'version_number'>,
  rule: RetentionPolicyRule | undefined,
  asOf: number,
): Promise<boolean> {
  const expired =
    thing.subject === 'DATA_VERSION'
      ? await expiredDataVersions(tenantId, thing.parent_id, rule, asOf)
      : await expiredGraphs(tenantId, thing.parent_id, rule, asOf);
  return expired.some((candidate) => candidate.version_number === thing.version_number);
}

/** Everything of the tenant that has expired at `asOf`: what a sweep then would delete. */
export async function expiredOfTenant(
  tenantId: string,
  rule: RetentionPolicyRule | undefined,
  asOf: number,
): Promise<{ dataVersions: Expired[]; graphs: Expired[] }> {
  if (!rule) return { dataVersions: [], graphs: [] };
  const tables = await dataTableStore.list(tenantId);
  const datasets = await datasetStore.list(tenantId);
  const expiredVersions: Expired[] = [];
  for (const table of tables) expiredVersions.push(...(await expiredDataVersions(tenantId, table.id, rule, asOf)));
  const expiredGraphVersions: Expired[] = [];
  for (const dataset of datasets) expiredGraphVersions.push(...(await expiredGraphs(tenantId, dataset.id, rule, asOf)));
  return { dataVersions: expiredVersions, graphs: expiredGraphVersions };
}
