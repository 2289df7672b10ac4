import * as z from 'zod';
import { defineJob, ENGINE_WORKER } from '../jobs/define-job';

/**
 * POST /transfers: a version's rows into a pricing target's table. The parameters name the
 * transfer only: the worker reads what to send and where from the transfer's item, and the
 * connection's secret from the connection, so no credential travels through the state machine.
 */
export const transferJob = defineJob({
  name: 'transfer',
  description:
    "Transfer to a pricing system: the worker reads the source Parquet with DuckDB in batches, maps its columns with the connection's type mapping, sends the batches into an upload keyed by the transfer (resuming what the pricing system already holds), commits it, and releases its claim on the target when it ends.",
  params: z.strictObject({ transfer_id: z.int().min(1) }),
  worker: {
    name: 'transfer-to-pricing',
    handler: 'jobs/transfer-to-pricing',
    ...ENGINE_WORKER,
    access: { table: 'write', dataKey: ['decrypt'], dataBucket: 'read' },
  },
});
