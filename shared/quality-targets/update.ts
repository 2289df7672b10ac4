import { validationError } from '../errors/app-error';
import { requireFeature } from '../features/store';
import { QualityRuleUpdateRequest } from '../model/quality-rule';
import { qualityRuleData } from './definition';
import { qualityRules } from '../quality/entity';

/**
 * Quality rules with their update (PUT, PATCH), declared apart from the list and get: the
 * update runs the SQL analyzer and DuckDB (definition.ts), which those functions leave out.
 * Every field is replaced and checked like a create; the kind may change.
 */
export const updatableQualityRules = qualityRules.withUpdate({
  document: QualityRuleUpdateRequest,
  // No catalogue code says "rule id in URL and request mismatch": 10-1400 names the field.
  idMismatch: (urlId, bodyId) => validationError({ id: `must be ${urlId}, the rule in the path, not ${bodyId}` }),
  next: async ({ tenantId }, _current, document) => {
    await requireFeature(tenantId, 'data_quality');
    return { data: await qualityRuleData(tenantId, document) };
  },
});
