import { auditFieldsOf } from '../db/entity-store';
import type { QualityRuleResponse } from '../model/quality-rule';
import { storedQualityRules, type QualityRuleEntity } from './store';

/** A rule as the API shows it: the common fields, then its kind's own. */
export function qualityRuleResponse(entity: QualityRuleEntity): QualityRuleResponse {
  const { data } = entity;
  return {
    id: entity.id,
    lock_version: entity.lock_version,
    name: data.name,
    description: data.description,
    tags: data.tags ? [...data.tags] : null,
    data_table_id: data.data_table_id,
    dataset_id: data.dataset_id ?? null,
    node_id: data.node_id ?? null,
    severity: data.severity,
    ...data.rule,
    ...auditFieldsOf(entity),
  };
}

/** Quality rules as the list and get handlers show them; their update is declared apart (shared/quality-targets/update.ts: it runs the analyzer). */
export const qualityRules = storedQualityRules.with({ response: qualityRuleResponse });
