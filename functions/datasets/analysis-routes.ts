import { nodeSchemaAnalysisJob } from '../../shared/datasets/jobs';
import { defineRoute } from '../../shared/http/route';
import { SchemaAnalysisResult } from '../../shared/model/columns';
import { SchemaAlerts, SchemaAnalysisRequest } from '../../shared/model/data-table';
import { NodeParams } from '../../shared/model/dataset';
import { NodeAnalysisStatusQuery, NodeSchemaAnalysisStatus } from '../../shared/model/node-analysis';

const tag = 'datasets';
const ANALYSIS_PATH = '/datasets/{dataset_id}/versions/{version_number}/nodes/{node_id}/schema-analysis';

/** Schema analysis of a recipe node's output (spec 3 condition 6; shared/datasets/node-analyses.ts). */
export const datasetAnalysisRoutes = {
  analyseNode: defineRoute({
    operationId: 'analyseDatasetNodeSchema',
    method: 'POST',
    path: ANALYSIS_PATH,
    summary: 'Start a schema analysis of a recipe node’s output',
    description:
      'Analyses the output of the node’s latest run’s kind (sample or full), which its run analysed already at the run’s schema_analysis_depth. SHALLOW: names, types, null counts. FULL (needs the schema:analyze permission): a profile per column and alerts. Needs a completed run (20-1064, also while a run rebuilds the node); one analysis at a time (20-1065); none once the output is FULL (20-1066). A run that replaces the output meanwhile fails the analysis (20-1028).',
    tag,
    handler: 'datasets/node-analyse',
    permission: 'data:write',
    request: { params: NodeParams, body: SchemaAnalysisRequest },
    response: { status: 202, description: 'Analysis started', body: NodeSchemaAnalysisStatus },
    errors: ['20-1042', '20-1043', '10-404', '20-1014', '20-1064', '20-1065', '20-1066'],
    access: { table: 'write', startsJobs: [nodeSchemaAnalysisJob] },
  }),
  nodeAnalysisStatus: defineRoute({
    operationId: 'getDatasetNodeSchemaAnalysisStatus',
    method: 'GET',
    path: ANALYSIS_PATH,
    summary: 'Status of the schema analysis of a recipe node’s output',
    description:
      'execution: the last analysis asked for, or the node’s latest run when it was asked for later (a run analyses its output). 20-1026 before the node’s first run.',
    tag,
    handler: 'datasets/node-analysis-status',
    permission: 'data:read',
    request: { params: NodeParams, query: NodeAnalysisStatusQuery },
    response: {
      status: 200,
      description: 'Status; depth is that of the node’s current output',
      body: NodeSchemaAnalysisStatus,
    },
    errors: ['10-404', '20-1014', '20-1015', '20-1026'],
    access: { table: 'read' },
  }),
  nodeAnalysisResult: defineRoute({
    operationId: 'getDatasetNodeSchemaAnalysisResult',
    method: 'GET',
    path: `${ANALYSIS_PATH}/result`,
    summary: 'The deepest schema analysis of a recipe node’s current output',
    description:
      '20-1027 while the run that makes the output runs; 20-1028 when the output is gone (its run failed, or a newer run replaced it while it was read).',
    tag,
    handler: 'datasets/node-analysis-result',
    permission: 'data:read',
    request: { params: NodeParams },
    response: { status: 200, description: 'Columns (and alerts after FULL)', body: SchemaAnalysisResult },
    errors: ['10-404', '10-444', '20-1014', '20-1026', '20-1027', '20-1028'],
    access: { table: 'read', dataBucket: 'read' },
  }),
  nodeAlerts: defineRoute({
    operationId: 'getDatasetNodeSchemaAlerts',
    method: 'GET',
    path: `${ANALYSIS_PATH}/alerts`,
    summary: 'Alerts of a FULL schema analysis of a recipe node’s current output',
    tag,
    handler: 'datasets/node-analysis-alerts',
    permission: 'data:read',
    request: { params: NodeParams },
    response: { status: 200, description: 'Alerts', body: SchemaAlerts },
    errors: ['10-404', '20-1014', '20-1026', '20-1027', '20-1028', '20-1062'],
    access: { table: 'read', dataBucket: 'read' },
  }),
};
