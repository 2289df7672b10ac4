import * as z from 'zod';

/** The stored data of a quota contract (the `data` of its entity item); dates are UTC days, YYYY-MM-DD. */
export const QuotaContractData = z.object({
  name: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()).readonly().nullable(),
  start_date: z.iso.date(),
  end_date: z.iso.date(),
  cpu_time_hours: z.int().min(0),
  data_transfer_gb: z.int().min(0),
  overage_allowed: z.boolean(),
});
export type QuotaContractData = z.infer<typeof QuotaContractData>;

/** How many contracts the tenant has: the item a create conditions on (store.ts). */
export const QuotaContractsHead = z.object({ contracts: z.int().min(0).optional() });
