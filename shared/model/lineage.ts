import * as z from 'zod';
import { HOWS } from './lineage-dependencies';

/** Column lineage as the API answers it (docs/lineage.md). */

const How = z
  .enum(HOWS)
  .describe(
    'copied, transformed, aggregated: the value comes from the column (OpenLineage DIRECT); window, conditional: the column shapes the value; filter, join, group_by, sort: the column decides the rows (OpenLineage INDIRECT)',
  );

export const LineageDependency = z
  .object({ node_id: z.int(), column: z.string(), how: How })
  .meta({ id: 'LineageDependency', description: 'A column of another node of the graph version this one reads' });

const Unknown = z
  .string()
  .optional()
  .describe('Present when the tracer cannot say everything: why. What it lists is then what it could follow');

export const ColumnLineageView = z
  .object({
    position: z.int().describe('1-based'),
    name: z
      .string()
      .nullable()
      .describe('Null: an unaliased expression, named by DuckDB when it binds the query (see the node’s run output)'),
    from: z.array(LineageDependency),
    unknown: Unknown,
  })
  .meta({ id: 'ColumnLineage' });

export const NodeLineage = z
  .object({
    node_id: z.int(),
    node_type: z.enum(['TABLE', 'RECIPE']),
    data_table_id: z.int().optional().describe('TABLE nodes'),
    data_version_number: z
      .int()
      .nullable()
      .optional()
      .describe('TABLE nodes: the data version whose columns were read; null when none was COMPLETED'),
    columns: z.array(ColumnLineageView),
    indirect: z
      .array(LineageDependency)
      .describe('What decides the rows of every column: filters, joins, grouping, ordering'),
    unknown: Unknown,
  })
  .meta({ id: 'NodeLineage' });

export const GraphLineage = z
  .object({ dataset_id: z.int(), version_number: z.int(), nodes: z.array(NodeLineage) })
  .meta({ id: 'GraphLineage' });

/** Where a column's values were read from outside the service, named as OpenLineage names datasets. */
export const SourceObject = z
  .object({
    namespace: z.string().describe('s3://bucket, gs://bucket, snowflake://account, bigquery, delta-sharing, ...'),
    name: z.string(),
    connection_id: z.int(),
    connection_type: z.string(),
    data_source_id: z.int(),
  })
  .meta({ id: 'LineageSourceObject' });

export const TracedSource = z
  .object({
    node_id: z.int(),
    data_table_id: z.int(),
    data_version_number: z.int().nullable(),
    column: z.string(),
    how: How.describe('How the traced column depends on it, through every node between'),
    source_object: SourceObject.nullable().describe('Null when the data table or its data source is gone'),
  })
  .meta({ id: 'LineageTracedSource' });

export const ColumnTrace = z
  .object({
    dataset_id: z.int(),
    version_number: z.int(),
    node_id: z.int(),
    column: ColumnLineageView,
    path: z
      .array(LineageDependency.extend({ to_node_id: z.int(), to_column: z.string() }))
      .describe('Every step upstream, breadth first: to_node_id.to_column reads node_id.column'),
    sources: z.array(TracedSource).describe('The data-table columns the column comes from, and their source objects'),
    unknown: z.array(z.string()).describe('What the trace could not follow, on the way'),
  })
  .meta({ id: 'ColumnTrace' });

export const ColumnTraceQuery = z.strictObject({
  column: z
    .string()
    .min(1)
    .max(255)
    .describe('The column’s name, or its 1-based position when no column has that name'),
});

export const DataVersionLineage = z
  .object({
    data_table_id: z.int(),
    version_number: z.int(),
    nodes: z
      .array(
        z.object({
          dataset_id: z.int(),
          version_number: z.int(),
          node_id: z.int(),
          node_type: z.enum(['TABLE', 'RECIPE']),
          columns: z.array(z.string()).describe('The columns of the node that read the data version'),
        }),
      )
      .describe('Every node of every graph version that reads the data version, directly or downstream'),
    exports: z
      .array(z.object({ export_id: z.int(), source_type: z.string(), source_id: z.int(), source_version: z.int() }))
      .describe('Exports to targets (POST /exports)'),
    direct_exports: z
      .array(z.object({ job_id: z.string(), source_type: z.string(), source_id: z.int(), source_version: z.int() }))
      .describe('Direct exports to an object store (POST /exports/direct), by job id'),
    multi_part_exports: z
      .array(z.object({ job_id: z.string(), source_type: z.string(), source_id: z.int(), source_version: z.int() }))
      .describe('Multi-part exports to pre-signed part URLs (POST /exports/multi-part), by job id'),
    transfers: z.array(
      z.object({ transfer_id: z.int(), source_type: z.string(), source_id: z.int(), source_version: z.int() }),
    ),
  })
  .meta({ id: 'DataVersionLineage' });

export type GraphLineage = z.input<typeof GraphLineage>;
export type NodeLineage = z.input<typeof NodeLineage>;
export type ColumnTrace = z.input<typeof ColumnTrace>;
export type TracedSource = z.input<typeof TracedSource>;
export type SourceObject = z.input<typeof SourceObject>;
export type DataVersionLineage = z.input<typeof DataVersionLineage>;
