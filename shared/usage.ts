import { keys } from './db/keys';
import { addToCounter } from './db/table';

/**
 * Per-tenant usage counters by calendar month (UTC), for the data-transfer and CPU quotas: an
 * atomic ADD, so concurrent jobs never lose a count. CPU_SECONDS is the CPU time of recipe
 * runs' workers while they build nodes (functions/jobs/run-recipe.ts).
 */
export type UsageMetric = 'DATA_READ_BYTES' | 'CPU_SECONDS';

export function usagePeriod(date = new Date()): string {
  return date.toISOString().slice(0, 7);
}

export async function recordUsage(tenantId: string, metric: UsageMetric, amount: number): Promise<void> {
  if (amount <= 0) return;
  await addToCounter(keys.usage(tenantId, metric, usagePeriod()), 'value', amount);
}
