/**
 * The service's CloudWatch metrics, declared once: the names and dimension sets the functions
 * emit (shared/observability/metrics.ts, in embedded metric format), the dashboard and alarms
 * read (infra/stacks/monitoring.ts), and docs/operations.md counts. Every dimension takes few
 * values (a route, a job kind, a code family, where a job ran): tenants, job ids and exact codes
 * are properties of the log line, searchable with Logs Insights, never dimensions, so the number
 * of metrics a stage makes is bounded by its route table and job list (metricSeriesCount).
 */

/** The Powertools service name (POWERTOOLS_SERVICE_NAME): the logger's, and the metrics' `service` dimension. */
export const SERVICE_NAME = 'data-preparation';

/** One namespace per stage, so a stage's metrics need no stage dimension: `DataPreparation/<stage>`. */
export function metricsNamespace(stage: string): string {
  return `DataPreparation/${stage}`;
}

/** The metrics of a request, by route (dimension `operation`: the route's operationId, or `fallback`). */
export const ROUTE_METRICS = {
  /** One per request answered. */
  requests: 'Requests',
  /** From the request's arrival in the function to its answer, in milliseconds. */
  latency: 'Latency',
  /** One per request answered with a problem (4xx or 5xx), 0 otherwise: its average is the route's problem rate. */
  problems: 'Problems',
  /** One per request answered 5xx, 0 otherwise. */
  serverErrors: 'ServerErrors',
} as const;

/** The metric of a problem by its code's family (dimension `family`: `10`, `30`, ... the code's part before the dash). */
export const PROBLEM_FAMILY_METRIC = 'ProblemsByFamily';

/** The metrics of a job's work step, by job kind (`job`) and where it ran (`ran_on`). */
export const JOB_METRICS = {
  /** One per call of the work step that picks the job up (a retry is another). */
  starts: 'JobStarts',
  /** The work step's duration, in milliseconds. */
  duration: 'JobDuration',
  /** CPU seconds the work used, as counted in the tenant's usage. */
  cpuSeconds: 'JobCpuSeconds',
  /** Rows the work reports in its progress. */
  rows: 'JobRows',
  /** Bytes it read and wrote, as its progress reports them. */
  bytes: 'JobBytes',
} as const;

/** The metric of how a work step ended, by job kind (`job`) and outcome (`outcome`: `completed`, `continues`, or a code family). */
export const JOB_OUTCOME_METRIC = 'JobOutcomes';

/** Where a work step ran: a Lambda, a Fargate task, or (the step resumed after its handed query) Athena. */
export const JOB_PLACES = ['lambda', 'fargate', 'athena'] as const;
export type JobPlace = (typeof JOB_PLACES)[number];

/** The retention sweep's metrics (no dimension but `service`). */
export const SWEEP_METRICS = {
  /** One per sweep invocation that ran: the "sweep has not run" alarm watches it. */
  runs: 'SweepRuns',
  /** Versions deleted. */
  deleted: 'SweepDeleted',
  /** Versions whose deletion failed. */
  failed: 'SweepFailed',
} as const;

/**
 * The engine slots' metrics (shared/engine/isolation/engine-process.ts), one line per engine
 * task that asked for a slot, with no dimension but `service`: the slots are one pool per
 * process that every task kind shares, so a wait says how busy the pool was, not the task;
 * the task (`task`) and where it ran (`ran_on`) are properties.
 */
export const ENGINE_SLOT_METRICS = {
  /** From asking for a slot to holding one (or giving up), in milliseconds: 0 when one was free. */
  wait: 'EngineSlotWait',
  /** 1 when every slot was taken and the task had to wait, 0 otherwise. */
  queued: 'EngineSlotQueued',
  /** 1 when no slot freed within the time the task could wait (an analysis answers 50-1012), 0 otherwise. */
  refused: 'EngineSlotRefused',
} as const;

/**
 * The metrics of a call through the connector interface (shared/connectors/observed.ts), by
 * connector (`connector`: the connection type) and outcome (`outcome`: `ok`, the failure
 * code's family, or `other` for a failure that has no catalogue code yet, an abort say).
 */
export const CONNECTOR_METRICS = {
  /** One per call. */
  calls: 'ConnectorCalls',
  /** The call's duration, in milliseconds. */
  latency: 'ConnectorLatency',
} as const;

/** The outcomes of a connector call besides a code family. */
export const CONNECTOR_OUTCOMES = ['ok', 'other'] as const;

/**
 * The metric of a schedule's tick (functions/schedules/tick.ts), by outcome (`outcome`: as the
 * schedule's history records it, `started`, `queued` or `skipped`; `ignored` for a tick not
 * acted on, its schedule gone, paused or changed since; `failed` for a tick that threw, which
 * the Scheduler retries; or the refusal code's family).
 */
export const SCHEDULE_TICK_METRIC = 'ScheduleTicks';

/** The outcomes of a tick besides a refusal's code family. */
export const SCHEDULE_OUTCOMES = ['started', 'queued', 'skipped', 'ignored', 'failed'] as const;
export type ScheduleOutcome = (typeof SCHEDULE_OUTCOMES)[number];

/**
 * OpenLineage run events (shared/openlineage/emit.ts), with no dimension but `service`: one
 * line per event the stage sent, or gave up on (its tries failed, or it could not be built);
 * the tenant, job id, job kind and event type are properties.
 */
export const LINEAGE_METRICS = {
  /** 1 when the endpoint took the event, 0 otherwise. */
  delivered: 'LineageDelivered',
  /** 1 when the event was lost, 0 otherwise: the "lineage-delivery-failures" alarm watches it. */
  failed: 'LineageDeliveryFailed',
} as const;

/** The dimension names, as they appear in the EMF lines. */
export const DIMENSIONS = {
  service: 'service',
  operation: 'operation',
  family: 'family',
  job: 'job',
  ranOn: 'ran_on',
  outcome: 'outcome',
  connector: 'connector',
} as const;

/** A code's family: the part before the dash (`30-1100` → `30`). */
export function codeFamily(code: string): string {
  return code.split('-')[0] ?? code;
}

/** What bounds the metrics of a stage. */
export interface MetricBounds {
  /** Operations of the route table, plus the fallback route. */
  readonly operations: number;
  /** Code families of the error catalogue. */
  readonly families: number;
  /** Job kinds, each with the places its worker may run. */
  readonly jobs: readonly { readonly places: number }[];
  /** Connectors: the connection types. */
  readonly connectors: number;
}

/**
 * The most metrics (distinct name and dimension values) a stage can make: each is billed as a
 * custom metric once it is emitted, so this is the cost's upper bound. Per operation, the four
 * route metrics; per family, one; per job kind and place, the five job metrics; per job kind,
 * an outcome per family plus `completed`, `continues` and `superseded`; the sweep's three; the
 * engine slots' three; per connector and outcome (a family, `ok`, `other`), the two connector
 * metrics; a tick count per outcome (a family or one of SCHEDULE_OUTCOMES); the lineage deliveries' two.
 */
export function metricSeriesCount(bounds: MetricBounds): number {
  const routes = bounds.operations * Object.keys(ROUTE_METRICS).length + bounds.families;
  const jobs = bounds.jobs.reduce(
    (total, job) => total + job.places * Object.keys(JOB_METRICS).length + (bounds.families + 3),
    0,
  );
  const connectors =
    bounds.connectors * (bounds.families + CONNECTOR_OUTCOMES.length) * Object.keys(CONNECTOR_METRICS).length;
  const schedules = bounds.families + SCHEDULE_OUTCOMES.length;
  const engine = Object.keys(ENGINE_SLOT_METRICS).length;
  const lineage = Object.keys(LINEAGE_METRICS).length;
  return routes + jobs + Object.keys(SWEEP_METRICS).length + engine + connectors + schedules + lineage;
}
