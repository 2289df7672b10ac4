/**
 * Where a data version's files live in the data bucket (DESIGN §4):
 * `<tenant>/tables/<id>/v<n>/` holding data.parquet (every row), sample.parquet and
 * sample.jsonl (the first SAMPLE rows, for the engine and for the API), preview.json (the
 * first rows and the schema) and one schema-analysis.<depth>.json per analysis depth.
 */
export function versionPrefix(tenantId: string, dataTableId: number, versionNumber: number): string {
  return `${tenantId}/tables/${dataTableId}/v${versionNumber}/`;
}

export function tablePrefix(tenantId: string, dataTableId: number): string {
  return `${tenantId}/tables/${dataTableId}/`;
}

export const VERSION_FILES = {
  data: 'data.parquet',
  sample: 'sample.parquet',
  sampleJson: 'sample.jsonl',
  preview: 'preview.json',
  schema: 'schema.json',
  analysis: (depth: 'SHALLOW' | 'FULL') => `schema-analysis.${depth.toLowerCase()}.json`,
} as const;
