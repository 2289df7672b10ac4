import * as z from 'zod';
import type { ErrorCode } from '../../shared/errors/catalogue';
import { defineRoute } from '../../shared/http/route';
import { integerText, listQuery } from '../../shared/model/common';
import { DataVersion, VersionParams } from '../../shared/model/data-table';
import { NodeParams } from '../../shared/model/dataset';
import {
  NODE_QUALITY_CHECK_LIST_FIELDS,
  NodeQualityAcceptRequest,
  NodeQualityCheckList,
  QualityAcceptRequest,
  QualityRuleCreateRequest,
  QualityRuleIdParams,
  QualityRuleList,
  QualityRuleMergePatch,
  QualityRuleResponse,
  QualityReport,
  QualityRuleUpdateRequest,
} from '../../shared/model/quality-rule';
import { storedQualityRules } from '../../shared/quality/store';

const tag = 'quality-rules';

/** What a rule's definition may be refused with when saved: a custom assertion goes through the recipe SQL analyzer. */
const DEFINITION_ERRORS: readonly ErrorCode[] = [
  '10-404',
  '10-409',
  '10-1501',
  '20-1054',
  '40-50001',
  '40-50002',
  '40-50003',
  '40-50004',
  '40-50005',
  '40-50006',
  '40-50007',
  '40-50008',
];

export const qualityRuleRoutes = {
  create: defineRoute({
    operationId: 'createQualityRule',
    method: 'POST',
    path: '/quality-rules',
    summary: 'Create a data-quality rule on a data table or a recipe node',
    description:
      'On a data table (data_table_id): checked after each import of the table, over the version just written. On a recipe node (dataset_id and node_id): checked after each run of the node, in any graph version of the dataset, over the output just written (docs/data-quality.md). A custom_sql assertion is checked by the recipe SQL analyzer over the one table CurrentTable; a pattern must be an RE2 regular expression. Needs the data_quality feature. Send an Idempotency-Key header to make retries safe.',
    tag,
    handler: 'quality-rules/create',
    permission: 'data:write',
    request: { body: QualityRuleCreateRequest, idempotent: true },
    response: { status: 201, description: 'The created rule', body: QualityRuleResponse },
    errors: DEFINITION_ERRORS,
    access: { table: 'write' },
    // The SQL analyzer and the pattern check run DuckDB.
    engine: true,
  }),
  list: defineRoute({
    operationId: 'listQualityRules',
    method: 'GET',
    path: '/quality-rules',
    summary: 'List data-quality rules',
    description:
      "Filter by a table's rules with filter=data_table_id eq <id>, a node's with filter=dataset_id eq <id> and node_id eq <id>. Needs the data_quality feature.",
    tag,
    handler: 'quality-rules/entity#list',
    permission: 'data:read',
    request: { query: storedQualityRules.listQuery },
    response: { status: 200, description: 'A page of rules', body: QualityRuleList },
    errors: ['10-1501'],
    access: { table: 'read' },
  }),
  get: defineRoute({
    operationId: 'getQualityRule',
    method: 'GET',
    path: '/quality-rules/{rule_id}',
    summary: 'Get a data-quality rule',
    tag,
    handler: 'quality-rules/entity#get',
    permission: 'data:read',
    request: { params: QualityRuleIdParams },
    response: { status: 200, description: 'The rule', body: QualityRuleResponse },
    errors: ['10-404', '10-1501'],
    access: { table: 'read' },
  }),
  update: defineRoute({
    operationId: 'updateQualityRule',
    method: 'PUT',
    path: '/quality-rules/{rule_id}',
    summary: 'Update a data-quality rule',
    description:
      'Full update, checked like a create; the kind may change. Versions already checked keep their reports.',
    tag,
    handler: 'quality-rules/update#update',
    permission: 'data:write',
    request: { params: QualityRuleIdParams, body: QualityRuleUpdateRequest },
    response: { status: 200, description: 'The updated rule', body: QualityRuleResponse },
    errors: ['10-1006', ...DEFINITION_ERRORS],
    access: { table: 'write' },
    engine: true,
  }),
  merge: defineRoute({
    operationId: 'mergeQualityRule',
    method: 'PATCH',
    path: '/quality-rules/{rule_id}',
    summary: 'Merge changes into a data-quality rule',
    description:
      'RFC 7396 merge patch: only the fields sent change; null removes an optional field. To change the kind, send the new kind’s fields and null for the old ones.',
    tag,
    handler: 'quality-rules/update#merge',
    permission: 'data:write',
    request: { params: QualityRuleIdParams, body: QualityRuleMergePatch, bodyTypes: ['merge-patch', 'json'] },
    response: { status: 200, description: 'The updated rule', body: QualityRuleResponse },
    errors: ['10-1006', ...DEFINITION_ERRORS],
    access: { table: 'write' },
    engine: true,
  }),
  delete: defineRoute({
    operationId: 'deleteQualityRule',
    method: 'DELETE',
    path: '/quality-rules/{rule_id}',
    summary: 'Delete a data-quality rule',
    description:
      'Later imports no longer check it; versions already checked keep their reports (accept one to release it).',
    tag,
    handler: 'quality-rules/delete',
    permission: 'data:write',
    request: {
      params: QualityRuleIdParams,
      query: z.strictObject({
        lock_version: integerText('must be an integer', 0)
          .optional()
          .describe('Current lock_version; refused if the rule changed since'),
      }),
    },
    response: { status: 204, description: 'Deleted' },
    errors: ['10-404', '10-1006', '10-1501'],
    access: { table: 'write' },
  }),
  accept: defineRoute({
    operationId: 'acceptQualityFailure',
    method: 'POST',
    path: '/data-tables/{data_table_id}/versions/{version_number}/quality/accept',
    summary: 'Accept the failed data-quality report of a data version',
    description:
      'The version may then be released, exported and transferred although an error rule failed (90-1002 otherwise); the report keeps its results and says who accepted it, when and why. Accepting again changes nothing. Needs the quality:accept permission (role admin).',
    tag,
    handler: 'quality-rules/accept',
    permission: 'quality:accept',
    request: { params: VersionParams, body: QualityAcceptRequest },
    response: { status: 200, description: 'The version with its accepted report', body: DataVersion },
    errors: ['10-404', '10-1006', '10-1501', '90-1003'],
    access: { table: 'write' },
  }),
  acceptNode: defineRoute({
    operationId: 'acceptNodeQualityFailure',
    method: 'POST',
    path: '/datasets/{dataset_id}/versions/{version_number}/nodes/{node_id}/quality/accept',
    summary: 'Accept the failed data-quality report of a recipe node’s output',
    description:
      'The node’s current output on all rows (or on samples, with use_sample) may then be released, exported and transferred although an error rule of the node failed (90-1002 otherwise); the report keeps its results and says who accepted it, when and why, as does its entry in the node’s check history. A later run is judged on its own report. Accepting again changes nothing. Needs the quality:accept permission (role admin).',
    tag,
    handler: 'quality-rules/accept-node',
    permission: 'quality:accept',
    request: { params: NodeParams, body: NodeQualityAcceptRequest },
    response: { status: 200, description: 'The output’s accepted report', body: QualityReport },
    errors: ['10-404', '10-1006', '10-1501', '90-1003'],
    access: { table: 'write' },
  }),
  nodeChecks: defineRoute({
    operationId: 'listNodeQualityChecks',
    method: 'GET',
    path: '/datasets/{dataset_id}/versions/{version_number}/nodes/{node_id}/quality-checks',
    summary: 'The data-quality checks of a recipe node’s runs',
    description:
      'One entry per run of the node in this graph version that had rules to check (the newest 100 are kept): the run, whether it was on samples, and its report. Needs the data_quality feature.',
    tag,
    handler: 'quality-rules/node-checks',
    permission: 'data:read',
    request: { params: NodeParams, query: listQuery(NODE_QUALITY_CHECK_LIST_FIELDS) },
    response: { status: 200, description: 'A page of the node’s checks', body: NodeQualityCheckList },
    errors: ['10-404', '10-1501'],
    access: { table: 'read' },
  }),
};
