import type { SchemaAnalysisDepth } from '../model/columns';
import type { OutputKind } from './run-items';

/**
 * Where a recipe node's outputs live in the data bucket:
 * `<tenant>/datasets/<id>/g<version>/nodes/<node>/{sample,full}/`, holding data.parquet (every
 * row the recipe produced), preview.json (the first rows), schema.json (the columns) and one
 * schema-analysis.<depth>.json. A run rewrites its kind's folder; the node's run item says
 * whether what is there is current (run-items.ts).
 */
export function nodeOutputPrefix(
  tenantId: string,
  datasetId: number,
  graphVersion: number,
  nodeId: number,
  kind: OutputKind,
): string {
  return `${graphOutputPrefix(tenantId, datasetId, graphVersion)}nodes/${nodeId}/${kind}/`;
}

/** Every output of a graph version's nodes (removed with the version). */
export function graphOutputPrefix(tenantId: string, datasetId: number, graphVersion: number): string {
  return `${tenantId}/datasets/${datasetId}/g${graphVersion}/`;
}

export const NODE_OUTPUT_FILES = {
  data: 'data.parquet',
  preview: 'preview.json',
  schema: 'schema.json',
  analysis: (depth: SchemaAnalysisDepth) => `schema-analysis.${depth.toLowerCase()}.json`,
} as const;
