import { quotedString } from '@duckdb/node-api';
import { dataTableStore } from '../data-tables/store';
import { graphs } from '../datasets/graphs';
import { datasetStore } from '../datasets/store';
import { withSandboxedDuckDb } from '../engine/duckdb';
import { shortCause } from '../engine/engine-errors';
import { CHECKED_TABLE } from '../engine/quality-check';
import { analyseRecipeSql } from '../engine/recipe-sql';
import { isAppError, validationError } from '../errors/app-error';
import {
  KIND_FIELD_NAMES,
  QualityRuleDefinition,
  type QualityRuleCreateRequest,
  type QualityRuleUpdateRequest,
} from '../model/quality-rule';
import type { QualityRuleData } from '../quality/store';

/**
 * What a rule's create and update check before it is stored (docs/data-quality.md): the data
 * table exists (10-404), or the dataset does (10-404) and some graph version of it has a
 * recipe node of that id (10-1400 naming node_id), a custom assertion passes the recipe SQL analyzer over the one table
 * CurrentTable (40-*, so it cannot read a file, load an extension or reach another tenant's
 * data), and a pattern is one DuckDB's RE2 reads (10-1400 naming `pattern`). Column names are
 * not checked here: a table's columns are its versions', which may change; a version that
 * lacks one fails the rule with 20-1031.
 */
export async function qualityRuleData(
  tenantId: string,
  request: QualityRuleCreateRequest | QualityRuleUpdateRequest,
): Promise<QualityRuleData> {
  await checkTarget(tenantId, request);
  const fields = request as unknown as Readonly<Record<string, unknown>>;
  const rule = QualityRuleDefinition.parse(
    Object.fromEntries([
      ['kind', request.kind],
      ...KIND_FIELD_NAMES[request.kind]
        .filter((name) => fields[name] !== undefined)
        .map((name) => [name, fields[name]]),
    ]),
  );
  if (rule.kind === 'custom_sql') await analyseRecipeSql(rule.sql, [CHECKED_TABLE]);
  if (rule.kind === 'pattern') await checkPattern(rule.pattern);
  return {
    name: request.name,
    description: request.description ?? null,
    tags: request.tags ?? null,
    data_table_id: request.data_table_id ?? null,
    dataset_id: request.dataset_id ?? null,
    node_id: request.node_id ?? null,
    severity: request.severity,
    rule,
  };
}

/**
 * The rule's table or node exists for the tenant. A node id is the same in every graph version
 * that has it (a clone keeps ids), so a rule on it checks the node's runs in each of them.
 */
async function checkTarget(
  tenantId: string,
  {
    data_table_id: tableId,
    dataset_id: datasetId,
    node_id: nodeId,
  }: Pick<QualityRuleCreateRequest, 'data_table_id' | 'dataset_id' | 'node_id'>,
): Promise<void> {
  if (typeof tableId === 'number') {
    await dataTableStore.get(tenantId, tableId);
    return;
  }
  // The request schema requires dataset_id and node_id together when there is no table.
  if (typeof datasetId !== 'number' || typeof nodeId !== 'number') return;
  await datasetStore.get(tenantId, datasetId);
  const versions = await graphs.list(tenantId, datasetId);
  const recipeNode = versions.some((graph) =>
    graph.nodes.some((node) => node.id === nodeId && node.node_type === 'RECIPE'),
  );
  if (!recipeNode) throw validationError({ node_id: `must be a recipe node of dataset ${datasetId}` });
}

/** 10-1400 naming `pattern` unless DuckDB's regular expressions (RE2) read it. */
async function checkPattern(pattern: string): Promise<void> {
  try {
    await withSandboxedDuckDb({}, (connection) =>
      connection.run(`SELECT regexp_full_match('', ${quotedString(pattern)})`),
    );
  } catch (error) {
    if (isAppError(error)) throw error;
    const why = shortCause(error instanceof Error ? error.message : String(error));
    throw validationError({ pattern: `must be an RE2 regular expression (${why})` });
  }
}
