import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, openSync, writeSync } from 'node:fs';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger } from '../log';
import {
  codeFamily,
  CONNECTOR_METRICS,
  DIMENSIONS,
  ENGINE_SLOT_METRICS,
  JOB_METRICS,
  JOB_OUTCOME_METRIC,
  LINEAGE_METRICS,
  metricsNamespace,
  PROBLEM_FAMILY_METRIC,
  ROUTE_METRICS,
  SCHEDULE_TICK_METRIC,
  SERVICE_NAME,
  SWEEP_METRICS,
  type JobPlace,
  type ScheduleOutcome,
} from './metric-names';

/**
 * Metrics in CloudWatch's embedded metric format (EMF), made by Powertools' Metrics: one JSON
 * line per record, which CloudWatch Logs turns into metrics where a function writes it to its
 * log (stdout, in Lambda and on Fargate). The local twin names a file instead
 * (LOCAL_METRICS_FILE; its Fargate task processes inherit it), where the same lines go. The
 * names and dimensions are those of metric-names.ts. One instance writes every line: a record
 * adds, writes and clears in one synchronous step, so the requests the twin answers at the same
 * time in one process never mix their dimensions (a new instance per record costs twice the CPU).
 */

/** The variable naming the file the twin's metric lines go to (infra/local/twin.ts). */
export const LOCAL_METRICS_FILE_VARIABLE = 'LOCAL_METRICS_FILE';

/** The file lines go to, opened once for appending (an open and a close per line were most of a line's cost). */
let opened: { readonly path: string; readonly fd: number } | undefined;

function appendTo(path: string, text: string): void {
  if (opened?.path !== path) {
    if (opened) closeSync(opened.fd);
    opened = { path, fd: openSync(path, 'a') };
  }
  writeSync(opened.fd, text);
}

function write(line: string): void {
  const file = process.env[LOCAL_METRICS_FILE_VARIABLE];
  // One short write per line, to a file opened for appending: lines of concurrent processes do not interleave.
  if (file) appendTo(file, `${line}\n`);
  else process.stdout.write(`${line}\n`);
}

/** The namespace: the stage's, which CDK sets (POWERTOOLS_METRICS_NAMESPACE), or the twin's. */
function namespace(): string {
  return process.env.POWERTOOLS_METRICS_NAMESPACE || metricsNamespace('local');
}

let recorded: { readonly namespace: string; readonly metrics: Metrics } | undefined;

/** The instance for the namespace in force (a test process's twins may differ). */
function recorder(): Metrics {
  const current = namespace();
  if (recorded?.namespace !== current)
    recorded = { namespace: current, metrics: new Metrics({ namespace: current, serviceName: SERVICE_NAME }) };
  return recorded.metrics;
}

/** POWERTOOLS_METRICS_DISABLED=true turns the lines off, as it does for Powertools' own publishing. */
function disabled(): boolean {
  const value = process.env.POWERTOOLS_METRICS_DISABLED?.toLowerCase();
  return value === 'true' || value === '1';
}

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/** Properties of a line: searchable in Logs Insights, no metric of their own. */
type Properties = Readonly<Record<string, string | number | undefined>>;

/**
 * The properties of the request or job at work (its tenant, trace or job id), which every
 * line written inside it carries: an engine slot's or a connector call's line names the
 * tenant whose work it was without each caller passing it down.
 */
const context = new AsyncLocalStorage<Properties>();

/** Runs `work` with `properties` on every metric line written within it (nested: the inner ones win). */
export function withMetricContext<T>(properties: Properties, work: () => Promise<T>): Promise<T> {
  return context.run({ ...context.getStore(), ...properties }, work);
}

/**
 * Writes one EMF line: `values` as metrics under `dimensions` (beside `service`), with
 * `properties`. A failure to measure never fails the request or the job: it is logged.
 */
function emit(
  dimensions: Readonly<Record<string, string>>,
  values: readonly (readonly [string, Unit, number | undefined])[],
  properties: Properties,
): void {
  if (disabled()) return;
  try {
    const metrics = recorder();
    for (const [name, value] of Object.entries(dimensions)) metrics.addDimension(name, value);
    for (const [name, unit, value] of values) if (value !== undefined) metrics.addMetric(name, unit, value);
    for (const [key, value] of [...Object.entries(context.getStore() ?? {}), ...Object.entries(properties)])
      if (value !== undefined) metrics.addMetadata(key, String(value));
    if (metrics.hasStoredMetrics()) write(JSON.stringify(metrics.serializeMetrics()));
  } catch (error) {
    logger.warn('metrics not written', { error: error as Error });
  } finally {
    recorded?.metrics.clearMetrics();
    recorded?.metrics.clearDimensions();
    recorded?.metrics.clearMetadata();
  }
}

/** What a request ended with, as observed() sees it. */
export interface RequestRecord {
  readonly operation: string;
  readonly status: number;
  readonly latencyMs: number;
  /** The problem's catalogue code, when the answer is one. */
  readonly code?: string;
  readonly tenantId?: string;
  readonly traceId: string;
}

/** A request's metrics: its route's count, latency and problem flags, and its problem's family. */
export function recordRequest(record: RequestRecord): void {
  const properties = { tenant_id: record.tenantId, trace_id: record.traceId, code: record.code, status: record.status };
  const problem = record.status >= 400 ? 1 : 0;
  emit(
    { [DIMENSIONS.operation]: record.operation },
    [
      [ROUTE_METRICS.requests, MetricUnit.Count, 1],
      [ROUTE_METRICS.latency, MetricUnit.Milliseconds, record.latencyMs],
      [ROUTE_METRICS.problems, MetricUnit.Count, problem],
      [ROUTE_METRICS.serverErrors, MetricUnit.Count, record.status >= 500 ? 1 : 0],
    ],
    properties,
  );
  if (problem && record.code !== undefined)
    emit({ [DIMENSIONS.family]: codeFamily(record.code) }, [[PROBLEM_FAMILY_METRIC, MetricUnit.Count, 1]], {
      ...properties,
      operation: record.operation,
    });
}

/** A work step picked its job up. */
export function recordJobStart(job: string, ranOn: JobPlace, properties: Properties): void {
  emit({ [DIMENSIONS.job]: job, [DIMENSIONS.ranOn]: ranOn }, [[JOB_METRICS.starts, MetricUnit.Count, 1]], properties);
}

/** How a work step ended. */
export interface JobEndRecord {
  readonly job: string;
  readonly ranOn: JobPlace;
  readonly durationMs: number;
  /**
   * `completed`; `continues` (it handed its machine a query); `superseded` (its job was
   * another step's by then, and it left it alone); or the failure's code.
   */
  readonly outcome: 'completed' | 'continues' | 'superseded' | { readonly code: string };
  readonly cpuSeconds?: number;
  readonly rows?: number;
  readonly bytes?: number;
  readonly tenantId?: string;
  readonly jobId?: string;
}

/** A work step's duration, CPU, rows and bytes by job kind and place, and its outcome by job kind. */
export function recordJobEnd(record: JobEndRecord): void {
  const code = typeof record.outcome === 'string' ? undefined : record.outcome.code;
  const properties = { tenant_id: record.tenantId, job_id: record.jobId, code };
  emit(
    { [DIMENSIONS.job]: record.job, [DIMENSIONS.ranOn]: record.ranOn },
    [
      [JOB_METRICS.duration, MetricUnit.Milliseconds, record.durationMs],
      [JOB_METRICS.cpuSeconds, MetricUnit.Seconds, record.cpuSeconds],
      [JOB_METRICS.rows, MetricUnit.Count, record.rows],
      [JOB_METRICS.bytes, MetricUnit.Bytes, record.bytes],
    ],
    properties,
  );
  emit(
    {
      [DIMENSIONS.job]: record.job,
      [DIMENSIONS.outcome]: code === undefined ? String(record.outcome) : codeFamily(code),
    },
    [[JOB_OUTCOME_METRIC, MetricUnit.Count, 1]],
    { ...properties, ran_on: record.ranOn },
  );
}

/** A retention sweep invocation's result. */
export function recordSweep(record: {
  readonly deleted: number;
  readonly failed: number;
  readonly sweepId?: string;
}): void {
  emit(
    {},
    [
      [SWEEP_METRICS.runs, MetricUnit.Count, 1],
      [SWEEP_METRICS.deleted, MetricUnit.Count, record.deleted],
      [SWEEP_METRICS.failed, MetricUnit.Count, record.failed],
    ],
    { sweep_id: record.sweepId },
  );
}

/** An engine task's turn for a slot: how long it waited, whether it had to, and whether it gave up for want of one. */
export function recordEngineSlot(record: {
  readonly task: string;
  readonly waitMs: number;
  readonly queued: boolean;
  readonly refused: boolean;
  readonly ranOn: JobPlace;
}): void {
  emit(
    {},
    [
      [ENGINE_SLOT_METRICS.wait, MetricUnit.Milliseconds, record.waitMs],
      [ENGINE_SLOT_METRICS.queued, MetricUnit.Count, record.queued ? 1 : 0],
      [ENGINE_SLOT_METRICS.refused, MetricUnit.Count, record.refused ? 1 : 0],
    ],
    { task: record.task, ran_on: record.ranOn },
  );
}

/** A call through the connector interface: by connector and outcome (`ok`, a code's family, or `other`). */
export function recordConnectorCall(record: {
  readonly connector: string;
  /** What was asked of it (test, browse, tables, read, write, a pricing call): a property. */
  readonly call: string;
  readonly latencyMs: number;
  /** The failure's catalogue code; `null` for a failure without one; absent when the call succeeded. */
  readonly code?: string | null;
}): void {
  const outcome = record.code === undefined ? 'ok' : record.code === null ? 'other' : codeFamily(record.code);
  emit(
    { [DIMENSIONS.connector]: record.connector, [DIMENSIONS.outcome]: outcome },
    [
      [CONNECTOR_METRICS.calls, MetricUnit.Count, 1],
      [CONNECTOR_METRICS.latency, MetricUnit.Milliseconds, record.latencyMs],
    ],
    { call: record.call, code: record.code ?? undefined },
  );
}

/** How a tick ended: a refusal has its code, the others may (a skip's 20-1034, a failure's). */
export type ScheduleTickOutcome =
  | { readonly outcome: ScheduleOutcome; readonly code?: string | null }
  | { readonly outcome: 'refused'; readonly code: string };

/** A schedule's tick: its outcome, or for a refusal the family of its code (the exact code is a property). */
export function recordScheduleTick(
  record: ScheduleTickOutcome & {
    readonly tenantId: string;
    readonly scheduleId: number;
    readonly cause: string;
    readonly jobId?: string | null;
  },
): void {
  emit(
    { [DIMENSIONS.outcome]: record.outcome === 'refused' ? codeFamily(record.code) : record.outcome },
    [[SCHEDULE_TICK_METRIC, MetricUnit.Count, 1]],
    {
      tenant_id: record.tenantId,
      schedule_id: record.scheduleId,
      cause: record.cause,
      code: record.code ?? undefined,
      job_id: record.jobId ?? undefined,
    },
  );
}

/** An OpenLineage run event sent, or lost (every try failed, or it could not be built). */
export function recordLineageDelivery(record: {
  readonly delivered: boolean;
  readonly tenantId: string;
  readonly jobId?: string;
  readonly kind?: string;
  readonly eventType?: string;
}): void {
  emit(
    {},
    [
      [LINEAGE_METRICS.delivered, MetricUnit.Count, record.delivered ? 1 : 0],
      [LINEAGE_METRICS.failed, MetricUnit.Count, record.delivered ? 0 : 1],
    ],
    { tenant_id: record.tenantId, job_id: record.jobId, job: record.kind, event_type: record.eventType },
  );
}
