import { defineRoute } from '../../shared/http/route';
import { GraphVersionParams, NodeParams } from '../../shared/model/dataset';
import { VersionParams } from '../../shared/model/data-table';
import { ColumnTrace, ColumnTraceQuery, DataVersionLineage, GraphLineage } from '../../shared/model/lineage';

const VERSION_PATH = '/datasets/{dataset_id}/versions/{version_number}';
// Reading stores what was traced again (graphs.storeLineage).
const tracing = { table: 'write' } as const;

/**
 * Column lineage (docs/lineage.md). Each route traces with DuckDB's parser what moved since
 * the version's lineage was stored, and stores it back (hence table write access): engine
 * routes, like the recipe analyzer's.
 */
export const lineageRoutes = {
  graphLineage: defineRoute({
    operationId: 'getDatasetVersionLineage',
    method: 'GET',
    path: `${VERSION_PATH}/lineage`,
    summary: 'Column lineage of a graph version',
    description:
      'For each output column of each node, the columns of the nodes it reads and how (copied, transformed, aggregated, window, conditional), and for each node what decides its rows (filter, join, group_by, sort). TABLE nodes show the columns of the data version read (pinned, or the newest COMPLETED). What the tracer cannot follow (a * over columns not known, a PIVOT, a table function, a trino-sql recipe) is marked `unknown` with the reason, never guessed.',
    tag: 'datasets',
    handler: 'lineage/graph',
    permission: 'data:read',
    request: { params: GraphVersionParams },
    response: { status: 200, description: 'The lineage of every node', body: GraphLineage },
    errors: ['10-404'],
    access: tracing,
    engine: true,
  }),
  columnLineage: defineRoute({
    operationId: 'traceNodeColumn',
    method: 'GET',
    path: `${VERSION_PATH}/nodes/{node_id}/lineage`,
    summary: 'One column followed back to its sources',
    description:
      'The column (by name, or by 1-based position) followed upstream through every node to the data-table columns it comes from, each with the object its data source reads, named as OpenLineage names datasets (s3://bucket, gs://bucket, snowflake://account, bigquery...). The path lists every step with how it composes (a copy of an aggregate is aggregated), filters and joins included.',
    tag: 'datasets',
    handler: 'lineage/column',
    permission: 'data:read',
    request: { params: NodeParams, query: ColumnTraceQuery },
    response: { status: 200, description: 'The column’s trace', body: ColumnTrace },
    errors: ['10-404'],
    access: tracing,
    engine: true,
  }),
  graphLineageMermaid: defineRoute({
    operationId: 'getDatasetVersionLineageMermaid',
    method: 'GET',
    path: `${VERSION_PATH}/lineage.mmd`,
    summary: 'A picture of the column lineage: Mermaid flowchart text',
    description:
      'Answers text/vnd.mermaid, not JSON: each node a box of its columns, each dependency an arrow labelled how (dotted when it decides rows rather than gives values). Paste it into any Mermaid renderer.',
    tag: 'datasets',
    handler: 'lineage/mermaid',
    permission: 'data:read',
    request: { params: GraphVersionParams },
    // Its body is Mermaid text, not JSON, so the route declares no body schema.
    response: { status: 200, description: 'The lineage as a Mermaid flowchart (text/vnd.mermaid)' },
    errors: ['10-404'],
    access: tracing,
    engine: true,
  }),
  dataVersionLineage: defineRoute({
    operationId: 'getDataVersionLineage',
    method: 'GET',
    path: '/data-tables/{data_table_id}/versions/{version_number}/lineage',
    summary: 'What is downstream of a data version',
    description:
      'Every node of every graph version that reads the data version (its TABLE nodes, and the recipe nodes whose columns depend on them, with those columns), the exports (to targets, direct and multi-part) and the transfers of the version or of a graph version whose output reads it.',
    tag: 'data-tables',
    handler: 'lineage/data-version',
    permission: 'data:read',
    request: { params: VersionParams },
    response: { status: 200, description: 'Everything downstream', body: DataVersionLineage },
    errors: ['10-404'],
    access: tracing,
    engine: true,
  }),
};
