import * as z from 'zod';

/**
 * The thresholds of a stage's alarms (infra/stacks/monitoring.ts; each alarm's runbook entry is
 * in docs/operations.md), which a stage may change (CDK context "alarms", checked at synth):
 * e.g. `"context": { "alarms": { "apiServerErrorPercent": 2, "jobFailures": 10 } }`.
 */
export const AlarmThresholds = z.strictObject({
  /** API 5xx answers, in percent of the API's requests over 5 minutes, in 2 of 3 periods. */
  apiServerErrorPercent: z.number().positive().max(100).default(1),
  /** The API's p99 latency over 5 minutes, in ms, in 3 of 3 periods. */
  apiP99LatencyMs: z.int().positive().default(5000),
  /** Errors (crashes, time-outs, out of memory: the wrappers answer every other failure) of one function in 5 minutes. */
  functionErrors: z.int().positive().default(1),
  /** Throttled Lambda invocations in the account's region in 5 minutes (concurrency is the account's). */
  lambdaThrottles: z.int().positive().default(10),
  /** Most concurrent executions in the account's region, in 2 of 3 periods of 5 minutes. */
  lambdaConcurrentExecutions: z.int().positive().default(800),
  /** Failed executions of one job kind in 15 minutes (users' own failures count: see the runbook). */
  jobFailures: z.int().positive().default(5),
  /** Timed-out executions of one job kind in 15 minutes. */
  jobTimeouts: z.int().positive().default(1),
  /** DynamoDB read and write throttle events of the table in 5 minutes. */
  tableThrottles: z.int().positive().default(10),
  /** DynamoDB system errors (5xx) of the table in 5 minutes. */
  tableSystemErrors: z.int().positive().default(1),
  /** Days in a row without a retention sweep invocation that swept (1 to 7). */
  sweepMissedDays: z.int().min(1).max(7).default(2),
  /** Versions the sweep failed to delete in a day. */
  sweepFailures: z.int().positive().default(1),
  /** Engine tasks refused a slot (every one taken for as long as they could wait: 50-1012) in 5 minutes. */
  engineSlotRefusals: z.int().positive().default(5),
  /** OpenLineage run events lost (every try failed) in 15 minutes. */
  lineageDeliveryFailures: z.int().positive().default(5),
});
/** With every default filled in. */
export type AlarmThresholds = z.output<typeof AlarmThresholds>;

/** Checks thresholds given as CDK context (any JSON, or a JSON string from `-c alarms=...`), naming every wrong value. */
export function parseAlarmThresholds(value: unknown): AlarmThresholds {
  const given = typeof value === 'string' ? (JSON.parse(value) as unknown) : (value ?? {});
  const parsed = AlarmThresholds.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `alarms.${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new Error(`context "alarms" is invalid: ${problems.join('; ')}`);
  }
  return parsed.data;
}
