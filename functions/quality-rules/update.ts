/**
 * The full update (PUT) and merge (PATCH) handlers of a quality rule ('quality-rules/update#update',
 * 'quality-rules/update#merge'): both check the definition with the SQL analyzer and DuckDB,
 * which the list and get functions (entity.ts) leave out of their bundles.
 */
import { mergeHandler, updateHandler } from '../../shared/http/entity-handlers';
import { updatableQualityRules } from '../../shared/quality-targets/update';
import { qualityRuleRoutes } from './routes';

export const update = updateHandler(qualityRuleRoutes.update, updatableQualityRules);
export const merge = mergeHandler(qualityRuleRoutes.merge, updatableQualityRules);
