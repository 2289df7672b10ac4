import type { QuotaUsageResponse } from '../model/quota';
import { dailyUsage } from '../usage';
import { utcDay, type QuotaContract } from './store';

const SECONDS_PER_HOUR = 3600;
/** GB as the contracts count it: 10^9 bytes (docs/quota.md). */
export const BYTES_PER_GB = 1e9;
const DAY_MS = 86_400_000;

/** The days from `from` (inclusive) to `to` (exclusive), oldest first. */
function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day < to; day = utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS))) days.push(day);
  return days;
}

/** What the contract's window has used so far: CPU seconds and bytes transferred, by day. */
export async function measuredUsage(tenantId: string, contract: QuotaContract, today = utcDay()) {
  const { start_date: from, end_date: end } = contract.data;
  // Days after today have no counts yet: the series ends with today (or the window's last day).
  const to = end <= today ? end : utcDay(new Date(Date.parse(`${today}T00:00:00Z`) + DAY_MS));
  const [cpu, read, written] = await Promise.all([
    dailyUsage(tenantId, 'CPU_SECONDS', from, to),
    dailyUsage(tenantId, 'DATA_READ_BYTES', from, to),
    dailyUsage(tenantId, 'DATA_WRITTEN_BYTES', from, to),
  ]);
  const daily = daysBetween(from, to).map((date) => ({
    date,
    cpu_seconds: cpu.get(date) ?? 0,
    data_transfer_bytes: (read.get(date) ?? 0) + (written.get(date) ?? 0),
  }));
  const cpuSeconds = daily.reduce((sum, day) => sum + day.cpu_seconds, 0);
  const bytes = daily.reduce((sum, day) => sum + day.data_transfer_bytes, 0);
  return { daily, cpuSeconds, bytes };
}

/** Whether the contract's CPU or data is used up: what it allows, or more, is used. */
export function usedUp(contract: QuotaContract, used: { readonly cpuSeconds: number; readonly bytes: number }) {
  return {
    cpu: used.cpuSeconds >= contract.data.cpu_time_hours * SECONDS_PER_HOUR,
    data: used.bytes >= contract.data.data_transfer_gb * BYTES_PER_GB,
  };
}

/** The usage answer of the contract: limits, used and remaining, and the daily series. */
export async function contractUsage(tenantId: string, contract: QuotaContract): Promise<QuotaUsageResponse> {
  const { daily, cpuSeconds, bytes } = await measuredUsage(tenantId, contract);
  const measured = (limit: number, used: number) => ({ limit, used, remaining: Math.max(0, limit - used) });
  return {
    contract_id: contract.id,
    start_date: contract.data.start_date,
    end_date: contract.data.end_date,
    overage_allowed: contract.data.overage_allowed,
    cpu_time_hours: measured(contract.data.cpu_time_hours, cpuSeconds / SECONDS_PER_HOUR),
    data_transfer_gb: measured(contract.data.data_transfer_gb, bytes / BYTES_PER_GB),
    daily,
  };
}
