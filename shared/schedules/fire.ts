import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import { graphs } from '../datasets/graphs';
import type { StoredGraph } from '../datasets/items';
import { startNodeRun } from '../datasets/node-run-start';
import { releasableOutputOf } from '../datasets/release';
import { liveRun } from '../datasets/run-lock';
import { AppError, isAppError, notFound } from '../errors/app-error';
import { requireFeature } from '../features/store';
import { logger } from '../log';
import type { ScheduleRun } from '../model/schedule';
import { newRunId, recordRun, settleRun } from './history';
import type { StoredScheduleRun } from './items';
import { runningReleaseBuild, startReleaseBuild } from './release-build';
import { deleteSchedulerSchedule, recurringName, syncSchedule, tickOnce, type TickInput } from './scheduler';
import { scheduleStore, type ScheduleEntity } from './store';
import { scheduleNow } from './timing';

/**
 * A tick of a schedule (docs/schedules.md): what the tick function does when a Scheduler
 * schedule fires. It starts the build a user's start would (startNodeRun: the quota, the run
 * lock, the plan of the whole graph upstream first), as a principal of the schedule's tenant,
 * and records the outcome in the schedule's history; a `released` schedule's tick starts a
 * new release of the released graph instead (release-build.ts). What a user's start would be refused
 * with is recorded as REFUSED with its code, once per tick, never retried; a schedule whose
 * dataset is gone is also paused, so it stops ticking.
 */

/** How often a queued tick looks again for the running build to end. */
export const QUEUE_RETRY_MS = 60_000;
/** How many times it looks before it gives up (recorded SKIPPED, 20-1034): an hour. */
export const QUEUE_ATTEMPTS = 60;

/** Who a scheduled build runs as: the schedule, for its tenant, with what a build needs. */
function schedulePrincipal(tenantId: string, schedule: ScheduleEntity): Principal {
  return {
    tenantId,
    clientId: `schedule-${schedule.id}`,
    name: `schedule ${schedule.data.name}`,
    roles: [],
    permissions: ['data:write'],
  };
}

/** The graph version a `latest` schedule builds now: the newest (10-404 when the dataset is gone). */
async function latestGraph(tenantId: string, schedule: ScheduleEntity): Promise<StoredGraph> {
  const datasetId = schedule.data.dataset_id;
  const latest = (await graphs.latest(tenantId, [datasetId])).get(datasetId);
  if (!latest) throw notFound('dataset', datasetId);
  return latest;
}

/** Pauses a schedule whose dataset is gone: it would be refused at every tick. */
async function pauseOrphan(tenantId: string, schedule: ScheduleEntity): Promise<void> {
  const actor = actorOf(schedulePrincipal(tenantId, schedule));
  await scheduleStore
    .replace(tenantId, actor, schedule, schedule.lock_version, { ...schedule.data, paused: true })
    .then(() => syncSchedule(tenantId, schedule.id))
    .catch((error: unknown) => logger.warn('schedule of a deleted dataset not paused', { error: error as Error }));
}

/** Whether a Scheduler schedule's tick is one the stored schedule still asks for; if not, it is corrected. */
async function stillWanted(tenantId: string, schedule: ScheduleEntity, input: TickInput): Promise<boolean> {
  if (input.cause === 'queued') return true;
  if (schedule.data.paused) return false;
  if (input.cause === 'on_new_version') return schedule.data.trigger.type === 'on_new_version';
  const current = schedule.data.trigger.type === input.cause && input.lock_version === schedule.lock_version;
  // A Scheduler schedule behind the stored one (a write whose sync failed): written again, this tick dropped.
  if (!current) await syncSchedule(tenantId, schedule.id);
  return current;
}

/**
 * Runs one tick; the history entry it wrote or settled, or undefined when the tick was not one
 * to act on (a schedule gone, paused or changed since, or a data version already handled).
 */
export async function fireSchedule(
  input: TickInput,
  options: { readonly claimVersion?: (schedule: ScheduleEntity, runId: string) => Promise<boolean> } = {},
): Promise<ScheduleRun | undefined> {
  const { tenant_id: tenantId, schedule_id: scheduleId } = input;
  const schedule = await scheduleStore.find(tenantId, scheduleId);
  if (!schedule) {
    // A survivor of a deleted schedule: it goes now.
    if (input.cause !== 'queued' && input.cause !== 'on_new_version')
      await deleteSchedulerSchedule(recurringName(tenantId, scheduleId));
    return undefined;
  }
  if (!(await stillWanted(tenantId, schedule, input))) return undefined;
  // The entry's time is the one the Scheduler fired for, not when the tick got to read it.
  const scheduled = Date.parse(input.scheduled_time ?? '');
  const now = Number.isNaN(scheduled) ? scheduleNow() : scheduled;
  const runId = input.queued?.run_id ?? newRunId(now);
  if (options.claimVersion && !(await options.claimVersion(schedule, runId))) return undefined;
  const entry: StoredScheduleRun = {
    run_id: runId,
    schedule_id: scheduleId,
    date: new Date(now).toISOString(),
    cause: input.queued?.first_cause ?? (input.cause === 'queued' ? 'cron' : input.cause),
    data_table_id: input.data_table_id ?? null,
    data_version_number: input.data_version_number ?? null,
    dataset_id: schedule.data.dataset_id,
    graph_version_number: null,
    node_id: null,
    job_id: null,
    outcome: 'STARTED',
    code: null,
    message: null,
  };
  // A queued tick settles the entry it wrote when it queued; every other tick writes its own.
  const finish = async (fields: Partial<StoredScheduleRun>): Promise<ScheduleRun> => {
    const done = { ...entry, ...fields };
    if (input.queued) await settleRun(tenantId, entry, 'QUEUED', fields);
    else await recordRun(tenantId, done);
    return done;
  };
  try {
    await requireFeature(tenantId, 'schedules');
    if (schedule.data.graph_version === 'released') {
      // A new release from the released graph (release-build.ts): its build's overlap is the previous one's.
      const running = await runningReleaseBuild(tenantId, schedule);
      if (running) return await whileRunning(input, schedule, { ...entry, ...running }, finish);
      const started = await startReleaseBuild(schedulePrincipal(tenantId, schedule), schedule, runId);
      return await finish({ ...started, outcome: 'STARTED', release: true });
    }
    const graph = await latestGraph(tenantId, schedule);
    const output = releasableOutputOf(graph);
    const at = { graph_version_number: graph.version_number, node_id: output.id };
    const running = await liveRun(tenantId, graph.dataset_id, graph.version_number);
    if (running) return await whileRunning(input, schedule, { ...entry, ...at }, finish);
    const status = await startNodeRun(
      schedulePrincipal(tenantId, schedule),
      { dataset_id: graph.dataset_id, version_number: graph.version_number, node_id: output.id },
      { use_sample: false, schema_analysis_depth: 'SHALLOW' },
    );
    return await finish({ ...at, job_id: status.execution?.job_id ?? null, outcome: 'STARTED' });
  } catch (error) {
    if (!isAppError(error)) throw error;
    const refused = await finish({ outcome: 'REFUSED', code: error.code, message: error.message });
    if (error.code === '10-404' && !(await datasetExists(tenantId, schedule.data.dataset_id)))
      await pauseOrphan(tenantId, schedule);
    return refused;
  }
}

async function datasetExists(tenantId: string, datasetId: number): Promise<boolean> {
  return (await graphs.latest(tenantId, [datasetId])).has(datasetId);
}

/** A tick while a build of the version runs: skipped, or queued to look again until it ends (an hour at most). */
async function whileRunning(
  input: TickInput,
  schedule: ScheduleEntity,
  entry: ScheduleRun,
  finish: (fields: Partial<StoredScheduleRun>) => Promise<ScheduleRun>,
): Promise<ScheduleRun> {
  const busy = new AppError('20-1034', { params: [entry.node_id ?? 0] });
  const skipped = { outcome: 'SKIPPED' as const, code: busy.code, message: busy.message };
  const attempt = input.queued?.attempt ?? 0;
  if (schedule.data.overlap === 'skip' || attempt >= QUEUE_ATTEMPTS) return finish(skipped);
  const firstCause = input.queued?.first_cause ?? (input.cause === 'queued' ? 'cron' : input.cause);
  await tickOnce([input.tenant_id, schedule.id, 'q', entry.run_id, attempt + 1], scheduleNow() + QUEUE_RETRY_MS, {
    ...input,
    cause: 'queued',
    queued: { attempt: attempt + 1, run_id: entry.run_id, first_cause: firstCause },
  });
  if (input.queued) return { ...entry, outcome: 'QUEUED' };
  const queued = { ...entry, outcome: 'QUEUED' as const, code: busy.code, message: busy.message };
  await recordRun(input.tenant_id, queued);
  return queued;
}
