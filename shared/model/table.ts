import * as z from 'zod';
import { IdParameter, listEnvelope } from './common';
import type { ConnectionType } from './connection';
import { withoutControls } from './text-rules';

/**
 * The tables of a connection (spec 2.10, table details: name, database?, schema?). For
 * analytics_db the database is the BigQuery project and the schema the dataset; for a
 * warehouse they are Snowflake's database and schema. `type` is ours (docs/decisions.md).
 */
/**
 * Most tables a listing reads from the system (Snowflake's SHOW commands answer at most 10,000
 * rows); filter, sort and paging apply to these. Larger catalogues are narrowed by the
 * connection's dataset, database or schema.
 */
export const MAX_LISTED_TABLES = 10_000;

/**
 * The connection types that have tables (a listing and one table's details): an analytics_db's
 * BigQuery datasets, a warehouse's Snowflake schemas, a delta_sharing recipient's shared
 * tables. Any other type (the bucket stores, the pricing systems) is 30-3001. The routes'
 * OpenAPI text is written from this list, so it names what the service does.
 */
export const TABLE_CONNECTION_TYPES = [
  'analytics_db',
  'warehouse',
  'delta_sharing',
] as const satisfies readonly ConnectionType[];

export const TableDetails = z
  .object({
    name: z.string().describe('The table name, as the system stores it (case included)'),
    database: z.string().nullable().describe('Snowflake database, BigQuery project, or Delta Sharing share'),
    schema: z
      .string()
      .nullable()
      .describe('Snowflake schema, BigQuery dataset, or the schema of a Delta Sharing share'),
    type: z
      .string()
      .describe('TABLE or VIEW (BigQuery also MATERIALIZED_VIEW, EXTERNAL, SNAPSHOT), as the system names it'),
    columns: z
      .array(
        z.object({
          name: z.string(),
          type: z.string().describe('The engine type the column is imported as (docs/delta-sharing.md)'),
          nullable: z.boolean(),
          partition: z.boolean().describe('A partition column: its values come from each file’s partitionValues'),
        }),
      )
      .optional()
      .describe('delta_sharing table details only: the columns of the table’s metadata'),
  })
  .meta({ id: 'TableDetails' });

export const TableList = listEnvelope(TableDetails, 'TableList');

/** Longest name either system stores: BigQuery's table ids (1024); Snowflake's identifiers are 255. */
const TableNameText = withoutControls(z.string().min(1).max(1024));

export const ConnectionTableParams = z.strictObject({
  connection_id: IdParameter,
  table_name: TableNameText.describe('The name exactly as listed (case-sensitive)'),
});

/** Where the table is, when not in the connection's own dataset or schema (the listing's database and schema). */
export const TableDetailsQuery = z.strictObject({
  database: withoutControls(z.string().min(1).max(255))
    .optional()
    .describe(
      "Snowflake database, BigQuery project (only the connection's own; the connection's when omitted), or Delta Sharing share (required)",
    ),
  schema: withoutControls(z.string().min(1).max(1024))
    .optional()
    .describe(
      "Snowflake schema or BigQuery dataset (the connection's when omitted, required when the connection names none), or the schema of a Delta Sharing share (required)",
    ),
});

export type TableDetails = z.input<typeof TableDetails>;
