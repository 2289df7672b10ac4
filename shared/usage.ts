import * as z from 'zod';
import { keys } from './db/keys';
import { addToCounter, queryItems } from './db/table';

/**
 * Per-tenant usage counters by UTC day, measured by the jobs themselves (docs/quota.md): an
 * atomic ADD, so concurrent jobs never lose a count. CPU_SECONDS is the CPU time of every
 * job's worker (shared/job-workers/worker-step.ts) and of the engine processes recipe runs start;
 * DATA_READ_BYTES what imports read from sources; DATA_WRITTEN_BYTES what exports write to
 * targets, object stores and pre-signed URLs; ASSISTANT_TOKENS the model tokens the AI
 * assistant used (its daily bound, docs/assistant.md).
 */
export type UsageMetric = 'DATA_READ_BYTES' | 'DATA_WRITTEN_BYTES' | 'CPU_SECONDS' | 'ASSISTANT_TOKENS';

/** The period a count made at `date` goes to: its UTC day, YYYY-MM-DD. */
export function usagePeriod(date = new Date()): string {
  return date.toISOString().slice(0, 10);
}

export async function recordUsage(tenantId: string, metric: UsageMetric, amount: number): Promise<void> {
  if (amount <= 0) return;
  await addToCounter(keys.usage(tenantId, metric, usagePeriod()), 'value', amount);
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const Counter = z.object({ sk: z.string(), value: z.number() });

/** The metric's counts by UTC day, for the days from `from` (inclusive) to `to` (exclusive) that have one. */
export async function dailyUsage(
  tenantId: string,
  metric: UsageMetric,
  from: string,
  to: string,
): Promise<Map<string, number>> {
  const prefix = keys.usageMetricPrefix(metric);
  const counters = await queryItems(keys.usagePartition(tenantId), { prefix }, (item) => Counter.parse(item));
  const days = new Map<string, number>();
  for (const { sk, value } of counters) {
    const day = sk.slice(prefix.length);
    // Counters of other periods (an earlier build counted by month) are not days.
    if (DAY.test(day) && from <= day && day < to) days.set(day, value);
  }
  return days;
}
