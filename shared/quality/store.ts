import * as z from 'zod';
import type { Entity } from '../db/entity-store';
import { defineEntity, entityListFields, listField } from '../http/define-entity';
import { QualityRuleDefinition, QualitySeverity } from '../model/quality-rule';

/**
 * Data-quality rules as stored and listed: the light part of their declaration (the route
 * table and the import worker read it); entity.ts completes it with the response and update.
 * A rule names its data table, or a dataset and one of its recipe nodes; an import of that
 * table, or a run of that node (in any graph version of the dataset), checks every rule
 * that names it.
 */
export const QualityRuleItemData = z.object({
  name: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()).readonly().nullable(),
  /** The table whose imports it checks; null for a rule on a recipe node. */
  data_table_id: z.int().nullable(),
  /** The dataset and recipe node whose runs it checks (absent from rules saved before nodes had rules). */
  dataset_id: z.int().nullable().optional(),
  node_id: z.int().nullable().optional(),
  severity: QualitySeverity,
  rule: QualityRuleDefinition,
});
export type QualityRuleData = z.infer<typeof QualityRuleItemData>;
export type QualityRuleEntity = Entity<QualityRuleData>;

export const storedQualityRules = defineEntity({
  kind: 'QUALITY_RULE',
  label: 'quality rule',
  data: QualityRuleItemData,
  references: {},
  list: entityListFields({
    data_table_id: listField.integer((entity: QualityRuleEntity) => entity.data.data_table_id),
    dataset_id: listField.integer((entity: QualityRuleEntity) => entity.data.dataset_id ?? null),
    node_id: listField.integer((entity: QualityRuleEntity) => entity.data.node_id ?? null),
    kind: listField.text((entity: QualityRuleEntity) => entity.data.rule.kind),
    severity: listField.text((entity: QualityRuleEntity) => entity.data.severity),
  }),
});

export const qualityRuleStore = storedQualityRules.store;

/** The rules an import of `dataTableId` checks, oldest first. */
export async function rulesOfTable(tenantId: string, dataTableId: number): Promise<QualityRuleEntity[]> {
  return (await qualityRuleStore.list(tenantId))
    .filter((rule) => rule.data.data_table_id === dataTableId)
    .sort((a, b) => a.id - b.id);
}

/** The rules a run of recipe node `nodeId` of dataset `datasetId` checks, oldest first. */
export async function rulesOfNode(tenantId: string, datasetId: number, nodeId: number): Promise<QualityRuleEntity[]> {
  return (await qualityRuleStore.list(tenantId))
    .filter((rule) => rule.data.dataset_id === datasetId && rule.data.node_id === nodeId)
    .sort((a, b) => a.id - b.id);
}
