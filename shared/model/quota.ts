import * as z from 'zod';
import { AuditFields, Description, EntityId, LockVersion, Name, Tags, listEnvelope } from './common';

/**
 * Quota contracts (spec 2.10, 8) and the usage measured against them (docs/quota.md). The
 * request schema checks only types: the rules the catalogue gives codes to (70-7001..70-7006)
 * are checked by shared/quota/rules.ts, so that a negative value is 70-7004, not 10-1400.
 */

/** A calendar day in UTC: contracts run from start_date (inclusive) to end_date (exclusive). */
export const QuotaDate = z.iso.date().describe('Calendar day (UTC), YYYY-MM-DD');

const QuotaValue = z.int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);

export const QuotaCreateRequest = z
  .strictObject({
    name: Name.nullable().optional(),
    description: Description,
    tags: Tags,
    start_date: QuotaDate.nullable().optional().describe('First day of the contract (inclusive)'),
    end_date: QuotaDate.nullable().optional().describe('Day the contract ends (exclusive)'),
    cpu_time_hours: QuotaValue.nullable().optional().describe('CPU hours the contract allows; non-negative'),
    data_transfer_gb: QuotaValue.nullable()
      .optional()
      .describe('Data transfer the contract allows, in GB (10^9 bytes); non-negative'),
    overage_allowed: z
      .boolean()
      .nullable()
      .optional()
      .describe('Whether work may go on once a value is used up; false when omitted'),
  })
  .meta({ id: 'QuotaCreateRequest' });
export type QuotaCreateRequest = z.infer<typeof QuotaCreateRequest>;

export const QuotaOverageRequest = z
  .strictObject({ overage_allowed: z.boolean().describe('Whether work may go on once a value is used up') })
  .meta({ id: 'QuotaOverageRequest' });

export const QuotaResponse = z
  .object({
    id: EntityId,
    lock_version: LockVersion,
    name: z.string(),
    description: z.string().nullable().optional(),
    tags: z.array(z.string()).nullable().optional(),
    start_date: QuotaDate,
    end_date: QuotaDate,
    cpu_time_hours: z.int().min(0),
    data_transfer_gb: z.int().min(0),
    overage_allowed: z.boolean(),
    ...AuditFields,
  })
  .meta({ id: 'QuotaResponse' });
export type QuotaResponse = z.infer<typeof QuotaResponse>;

export const QuotaList = listEnvelope(QuotaResponse, 'QuotaList');

/** One measured value against its limit; `remaining` stops at zero (`used` shows any overage). */
const Measured = (unit: string) =>
  z.object({
    limit: z.number().min(0).describe(`What the contract allows, in ${unit}`),
    used: z.number().min(0).describe(`Used in the contract's window so far, in ${unit}`),
    remaining: z.number().min(0).describe(`limit − used, at least 0, in ${unit}`),
  });

export const QuotaUsageDay = z.object({
  date: QuotaDate,
  cpu_seconds: z.number().min(0).describe('CPU time of the jobs of that day, in seconds'),
  data_transfer_bytes: z.int().min(0).describe('Bytes read from sources and written to targets that day'),
});

export const QuotaUsageResponse = z
  .object({
    contract_id: EntityId,
    start_date: QuotaDate,
    end_date: QuotaDate,
    overage_allowed: z.boolean(),
    cpu_time_hours: Measured('hours'),
    data_transfer_gb: Measured('GB (10^9 bytes)'),
    daily: z.array(QuotaUsageDay).describe("One entry per day of the contract's window up to today, oldest first"),
  })
  .meta({ id: 'QuotaUsageResponse' });
export type QuotaUsageResponse = z.infer<typeof QuotaUsageResponse>;
