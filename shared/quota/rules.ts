import { AppError } from '../errors/app-error';
import type { QuotaCreateRequest } from '../model/quota';
import type { QuotaContractData } from './items';

/**
 * The rules of a contract create that the catalogue gives codes to (spec 8, errors 7.8), in
 * the order they are checked (docs/quota.md):
 *
 *   70-7004  a value sent is negative
 *   70-7002  one date without the other
 *   (neither date: no window to create; refused by the caller with 10-7003 or the overlap code)
 *   70-7005  dates without name, cpu_time_hours and data_transfer_gb
 *   70-7001  end_date before start_date
 *   70-7006  end_date on start_date (a window of no day)
 */
export function contractDataOf(body: QuotaCreateRequest): QuotaContractData | undefined {
  const values = [body.cpu_time_hours, body.data_transfer_gb];
  if (values.some((value) => value !== null && value !== undefined && value < 0)) throw new AppError('70-7004');
  const { start_date: start, end_date: end } = body;
  const hasStart = start !== null && start !== undefined;
  const hasEnd = end !== null && end !== undefined;
  if (hasStart !== hasEnd) throw new AppError('70-7002');
  if (!hasStart || !hasEnd) return undefined;
  const { name, cpu_time_hours: cpu, data_transfer_gb: data } = body;
  if (name === null || name === undefined || cpu === null || cpu === undefined || data === null || data === undefined)
    throw new AppError('70-7005');
  if (end < start) throw new AppError('70-7001');
  if (end === start) throw new AppError('70-7006');
  return {
    name,
    description: body.description ?? null,
    tags: body.tags ?? null,
    start_date: start,
    end_date: end,
    cpu_time_hours: cpu,
    data_transfer_gb: data,
    overage_allowed: body.overage_allowed ?? false,
  };
}
