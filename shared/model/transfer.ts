import * as z from 'zod';
import { AuditFields, EntityId, IdParameter, listEnvelope } from './common';
import { JobExecution, LaunchMode } from './job';

/** The pricing system's column types, the values a connection's `type_mapping` may name. */
export const PRICING_TYPES = ['STRING', 'INTEGER', 'DECIMAL', 'BOOLEAN', 'DATE', 'DATETIME'] as const;
export type PricingType = (typeof PRICING_TYPES)[number];

/**
 * Transfers (spec 3, conditions 5 and 9): a released dataset's output or a data table version
 * sent, row by row in batches, into the table a pricing target names (docs/transfers.md).
 */

export const TRANSFER_SOURCE_TYPES = ['dataset', 'datatable'] as const;
export const TransferSourceType = z
  .enum(TRANSFER_SOURCE_TYPES)
  .describe('dataset (a released dataset version) or datatable (a COMPLETED data table version)');
export type TransferSourceType = z.infer<typeof TransferSourceType>;

/** What a request names as the version: a number, or the dataset's latest released version. */
export const RELEASED = 'released';

export const StartTransferRequest = z
  .strictObject({
    target_id: EntityId.describe('A pricing target (type pricing); the rows go into its project and table path'),
    source_type: TransferSourceType,
    source_id: EntityId.describe('Id of the data table or dataset'),
    source_version: z
      .union([EntityId, z.literal(RELEASED)])
      .describe(
        'Version number; for a dataset also "released": its latest released version (a data table\'s is a number, 10-1400). A draft dataset version is 10-1044, a data table version that is not COMPLETED 10-1045',
      ),
    launch: LaunchMode.optional(),
  })
  .meta({ id: 'StartTransferRequest' });
export type StartTransferRequest = z.infer<typeof StartTransferRequest>;

export const TransferCreated = z.object({ transfer_id: EntityId }).meta({ id: 'TransferCreated' });

export const TransferIdParams = z.strictObject({ transfer_id: IdParameter });

export const TransferColumn = z
  .object({ name: z.string(), type: z.enum(PRICING_TYPES).describe('The pricing type the column is sent as') })
  .meta({ id: 'TransferColumn' });

export const TransferResponse = z
  .object({
    id: EntityId,
    job_id: z.string(),
    target_id: EntityId,
    target_name: z.string().describe('The target as it was named when the transfer was created'),
    connection_id: EntityId,
    connection_name: z.string(),
    source_type: TransferSourceType,
    source_id: EntityId,
    source_version: EntityId.describe('The version sent ("released" resolved to its number)'),
    source_name: z.string(),
    project_path: z.string().describe("The project the rows go to: the target's, parameters rendered"),
    table_path: z.string().describe("The table inside the project: the target's, parameters rendered"),
    columns: z.array(TransferColumn).describe("The columns sent, with the connection's type mapping applied"),
    rows_total: z.int().min(0).describe('Rows of the source'),
    rows_sent: z.int().min(0).describe('Rows sent to the pricing system and taken by it, batch by batch'),
    rows_accepted: z
      .int()
      .min(0)
      .describe('Rows the pricing system holds for this transfer: after a failure half-way, what it took'),
    execution: JobExecution,
    ...AuditFields,
  })
  .meta({ id: 'Transfer' });
export type TransferResponse = z.infer<typeof TransferResponse>;

export const TransferList = listEnvelope(TransferResponse, 'TransferList');
