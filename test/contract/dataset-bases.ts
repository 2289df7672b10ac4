/**
 * The valid requests of the dataset operations (spec 2.8), apart from test/contract/corpus.ts
 * to keep each module small: a dataset whose version 1 holds a TABLE node over the fixture
 * table, and spares nothing depends on for the deletes.
 */
import type { OperationId } from '../../functions/routes';
import type { JsonValue } from './variations';

/** The dataset entities the corpus aims at, made beforehand. */
export interface DatasetFixtures {
  readonly tableId: number;
  readonly datasetId: number;
  /** A TABLE node in version 1 of the dataset. */
  readonly nodeId: number;
  /** Entities nothing depends on, for the deletes: a dataset, and a second node in version 1. */
  readonly spare: { readonly datasetId: number; readonly nodeId: number };
  /** The entities as GET answers them: the bases of full updates. */
  readonly current: { readonly dataset: JsonValue; readonly node: JsonValue };
}

/** The parts of a valid request the corpus varies (the Base of test/contract/corpus.ts). */
export interface DatasetBase {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
  readonly mediaType?: string;
  readonly enums?: Readonly<Record<string, readonly JsonValue[]>>;
}

/** A full update sends the entity back without the members the corpus need not probe. */
const without = (entity: JsonValue, ...omit: string[]) =>
  Object.fromEntries(Object.entries(entity as object).filter(([name]) => !omit.includes(name))) as JsonValue;

export function datasetBases(f: DatasetFixtures): Partial<Readonly<Record<OperationId, DatasetBase>>> {
  const datasetId = { dataset_id: String(f.datasetId) };
  const version = { ...datasetId, version_number: '1' };
  const node = { ...version, node_id: String(f.nodeId) };
  const audit = ['last_modified_by', 'last_modified_date'];
  const lock = (entity: JsonValue) => (entity as { lock_version: number }).lock_version;
  return {
    createDataset: { body: { name: 'contract dataset', description: 'd', tags: ['a'] } },
    listDatasets: { query: { limit: '5' } },
    getDataset: { params: datasetId },
    updateDataset: { params: datasetId, body: without(f.current.dataset, ...audit, 'latest_transformation_graph') },
    mergeDataset: {
      params: datasetId,
      body: { id: f.datasetId, lock_version: lock(f.current.dataset), description: 'merged', tags: ['m'] },
      mediaType: 'application/merge-patch+json',
    },
    deleteDataset: { params: { dataset_id: String(f.spare.datasetId) } },
    createDatasetVersion: {
      params: datasetId,
      body: { dataset_id: f.datasetId, source_transformation_graph_version_number: 1 },
    },
    listDatasetVersions: { params: datasetId },
    getDatasetVersion: { params: version },
    deleteDatasetVersion: { params: { dataset_id: String(f.spare.datasetId), version_number: '1' } },
    listDatasetNodes: { params: version },
    listDatasetEdges: { params: version },
    addDatasetNode: {
      params: version,
      body: { node_type: 'TABLE', dataset_id: f.datasetId, data_table_id: f.tableId, data_table_version_number: null },
      enums: { node_type: ['RECIPE', 'table', 'VIEW'] },
    },
    getDatasetNode: { params: node },
    updateDatasetNode: { params: node, body: without(f.current.node, ...audit) },
    deleteDatasetNode: { params: { ...version, node_id: String(f.spare.nodeId) } },
    getDatasetGraphMermaid: { params: version },
    getDatasetVersionLineage: { params: version },
    getDatasetVersionLineageMermaid: { params: version },
    // The fixture node is a TABLE node: the service answers its refusal once the request is valid.
    traceNodeColumn: { params: node, query: { column: 'id' } },
    listBindingCandidates: { params: node },
    // The fixture node is a TABLE node: the service answers 20-1014 once the request is valid.
    analyseDatasetNodeSchema: {
      params: node,
      body: { depth: 'SHALLOW' },
      enums: { depth: ['FULL', 'shallow', 'DEEP'] },
    },
    getDatasetNodeSchemaAnalysisStatus: { params: node, query: { job_id: 'node-schema-analysis-1' } },
    getDatasetNodeSchemaAnalysisResult: { params: node },
    getDatasetNodeSchemaAlerts: { params: node },
    // The fixture node is a TABLE node: the service refuses the runs with 20-1014 once the request is valid.
    executeDatasetNode: { params: node, body: { use_sample: true, schema_analysis_depth: 'SHALLOW' } },
    getDatasetNodeRunStatus: { params: node, query: { job_id: 'recipe-run-contract' } },
    cancelDatasetNodeRun: { params: node },
    cancelDatasetNodeSchemaAnalysis: { params: node },
    previewDatasetNode: { params: node, query: { use_sample: 'false' } },
    // Its only node is a TABLE node: the service answers 20-1020 once the request is valid.
    releaseDatasetVersion: { params: version },
  };
}
