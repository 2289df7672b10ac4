import { config } from '../config';
import type { StoredExecution } from '../jobs/status';
import { executionView } from '../jobs/view';
import type { RetentionPolicyRule } from '../model/retention';

/**
 * What the retention policy deletes, and when (docs/retention.md). A version the policy may
 * delete expires `threshold_days` after its creation; every other version shows null:
 *
 * - a data version that is running (the import still writes it), that a dataset node pins
 *   (ref_datasets: draft or released, a graph reads it), or that is its table's newest
 *   COMPLETED version (what the table serves, and what unpinned TABLE nodes read);
 * - a transformation graph version that is released, or is its dataset's newest (a dataset
 *   keeps one version, 20-1007).
 */
const DAY_MS = 86_400_000;

function afterThreshold(createdDate: string, rule: RetentionPolicyRule): string {
  return new Date(Date.parse(createdDate) + rule.threshold_days * DAY_MS).toISOString();
}

/** The parts of a data version that decide its expiration. */
export interface ExpiringDataVersion {
  readonly version_number: number;
  readonly execution: StoredExecution;
  readonly created_date: string;
  readonly ref_datasets?: number;
}

/**
 * A data version's expiration_date under `rule` (none: the policy is off), where `kept` is
 * the number of its table's newest COMPLETED version.
 */
export function dataVersionExpiration(
  version: ExpiringDataVersion,
  rule: RetentionPolicyRule | undefined,
  kept: number | undefined,
  now = Date.now(),
): string | null {
  if (!rule) return null;
  const { status } = executionView(version.execution, now, config.jobInactivitySeconds);
  if (status === 'PENDING' || status === 'IN_PROGRESS') return null;
  if ((version.ref_datasets ?? 0) > 0 || version.version_number === kept) return null;
  return afterThreshold(version.created_date, rule);
}

/** The parts of a graph version that decide its expiration. */
export interface ExpiringGraph {
  readonly version_number: number;
  readonly release_status: boolean;
  readonly created_date: string;
}

/** A graph version's expiration_date under `rule`, where `latest` is its dataset's newest version. */
export function graphExpiration(
  graph: ExpiringGraph,
  rule: RetentionPolicyRule | undefined,
  latest: number | undefined,
): string | null {
  if (!rule || graph.release_status || graph.version_number === latest) return null;
  return afterThreshold(graph.created_date, rule);
}

/** Whether an expiration_date has come at `asOf`. */
export function hasExpired(expiration: string | null, asOf: number): expiration is string {
  return expiration !== null && Date.parse(expiration) <= asOf;
}

/** The newest COMPLETED version among `versions` (a table's whole list). */
export function newestCompletedOf(
  versions: readonly { version_number: number; execution: StoredExecution }[],
): number | undefined {
  return versions
    .filter((version) => version.execution.status === 'COMPLETED')
    .reduce<number | undefined>((newest, { version_number }) => Math.max(newest ?? 0, version_number), undefined);
}
