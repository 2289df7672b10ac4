import { randomUUID } from 'node:crypto';
import { config } from '../config';
import { is } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { keys } from '../db/keys';
import { deleteItem, putItem, updateItem } from '../db/table';
import { nodeRuns } from '../datasets/runs';
import { applyListQuery, type ListFields, type ListPage, type ListQuery } from '../http/list-query';
import { executionView } from '../jobs/view';
import type { SCHEDULE_RUN_LIST_FIELDS, ScheduleRun } from '../model/schedule';
import { graphs } from '../datasets/graphs';
import { StoredScheduleRun } from './items';

/**
 * A schedule's history (docs/schedules.md): one entry per tick, with the build it started or
 * why none; the newest HISTORY_LIMIT are kept. A STARTED entry learns its build's outcome
 * when it is read after the build ended (SUCCEEDED, or FAILED with the run's error code). A
 * released schedule's build succeeds only by its release, which the build's completion
 * settles (release-build.ts); a read settles only its failure, or a release that was not
 * recorded.
 */

/** Entries kept per schedule: older ones go as new ones come. */
export const HISTORY_LIMIT = 100;

export const scheduleRunItems = new ItemType('SCHEDULE_RUN', StoredScheduleRun);

/** An entry's id: its date first, so entries sort by time. */
export function newRunId(date: number): string {
  return `${new Date(date).toISOString()}#${randomUUID().slice(0, 8)}`;
}

/** Writes an entry, then lets the oldest go beyond the limit. */
export async function recordRun(tenantId: string, entry: StoredScheduleRun): Promise<StoredScheduleRun> {
  const key = keys.scheduleRun(tenantId, entry.schedule_id, entry.run_id);
  await putItem(key, scheduleRunItems.attributes(entry, { kind: 'SCHEDULE_RUN', tenant_id: tenantId }));
  const all = await scheduleRunItems.query(
    keys.children(tenantId, 'SCHEDULE', entry.schedule_id),
    keys.SCHEDULE_RUN_PREFIX,
  );
  const excess = all.slice(0, Math.max(0, all.length - HISTORY_LIMIT));
  await Promise.all(excess.map((old) => deleteItem(keys.scheduleRun(tenantId, old.schedule_id, old.run_id))));
  return entry;
}

/** Changes an entry's outcome, only from `from` (a later write of another outcome wins). */
export async function settleRun(
  tenantId: string,
  entry: Pick<ScheduleRun, 'schedule_id' | 'run_id'>,
  from: ScheduleRun['outcome'],
  changes: Partial<StoredScheduleRun>,
): Promise<void> {
  await updateItem(
    keys.scheduleRun(tenantId, entry.schedule_id, entry.run_id),
    scheduleRunItems.changes({ set: changes }),
    is.equal('outcome', from),
  );
}

/** A release build whose version is released: SUCCEEDED (its completion settles it; this, if that write was lost). */
async function released(tenantId: string, entry: StoredScheduleRun): Promise<StoredScheduleRun> {
  const graph = await graphs.find(tenantId, entry.dataset_id, entry.graph_version_number ?? 0);
  if (!graph?.release_status) return entry;
  await settleRun(tenantId, entry, 'STARTED', { outcome: 'SUCCEEDED' });
  return { ...entry, outcome: 'SUCCEEDED' };
}

/** A STARTED entry as its build stands now: SUCCEEDED or FAILED once the run ended (and stored so). */
async function withOutcome(tenantId: string, entry: StoredScheduleRun, now: number): Promise<StoredScheduleRun> {
  if (entry.outcome !== 'STARTED' || entry.graph_version_number === null || entry.node_id === null) return entry;
  const runs = await nodeRuns.list(tenantId, entry.dataset_id, entry.graph_version_number).catch(() => undefined);
  const run = runs?.get(entry.node_id);
  if (entry.release && run?.execution.job_id === entry.job_id && run.execution.status === 'COMPLETED')
    return released(tenantId, entry);
  if (!run || run.execution.job_id !== entry.job_id) {
    if (entry.release) return released(tenantId, entry);
    // A later run replaced the record; its full output still names this job if this one built it.
    if (run?.full_output?.run_id !== entry.job_id) return entry;
    const settled = { ...entry, outcome: 'SUCCEEDED' as const };
    await settleRun(tenantId, entry, 'STARTED', { outcome: 'SUCCEEDED' });
    return settled;
  }
  const execution = executionView(run.execution, now, config.jobInactivitySeconds);
  if (execution.status === 'COMPLETED') {
    await settleRun(tenantId, entry, 'STARTED', { outcome: 'SUCCEEDED' });
    return { ...entry, outcome: 'SUCCEEDED' };
  }
  if (execution.status === 'FAILED' || execution.status === 'ABORTED') {
    const changes = {
      outcome: 'FAILED' as const,
      code: execution.error?.code ?? null,
      message: execution.error?.message ?? null,
    };
    await settleRun(tenantId, entry, 'STARTED', changes);
    return { ...entry, ...changes };
  }
  return entry;
}

interface Listed {
  readonly id: number;
  readonly run: ScheduleRun;
}

const FIELDS: ListFields<Listed, typeof SCHEDULE_RUN_LIST_FIELDS> = {
  date: { type: 'datetime', value: ({ run }) => run.date },
  cause: { type: 'string', value: ({ run }) => run.cause },
  outcome: { type: 'string', value: ({ run }) => run.outcome },
  code: { type: 'string', value: ({ run }) => run.code },
  job_id: { type: 'string', value: ({ run }) => run.job_id },
  graph_version_number: { type: 'integer', value: ({ run }) => run.graph_version_number },
  data_table_id: { type: 'integer', value: ({ run }) => run.data_table_id },
  data_version_number: { type: 'integer', value: ({ run }) => run.data_version_number },
};

/** The schedule's history, oldest first unless sorted (ListQuery), each STARTED entry brought up to date. */
export async function historyPage(
  tenantId: string,
  scheduleId: number,
  query: ListQuery,
  now: number,
): Promise<ListPage<ScheduleRun>> {
  const entries = await scheduleRunItems.query(
    keys.children(tenantId, 'SCHEDULE', scheduleId),
    keys.SCHEDULE_RUN_PREFIX,
  );
  const current = await Promise.all(entries.map((entry) => withOutcome(tenantId, entry, now)));
  const page = applyListQuery(
    current.map((run, index) => ({ id: index + 1, run })),
    query,
    FIELDS,
  );
  return { ...page, items: page.items.map(({ run }) => run) };
}
