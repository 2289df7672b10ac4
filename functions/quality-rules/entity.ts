/**
 * The list and get handlers of the declared quality-rule entity (shared/quality/entity.ts),
 * one export each ('quality-rules/entity#list'); both need the tenant's data_quality feature
 * (10-1501). The update and merge are in update.ts: they run the SQL analyzer.
 */
import { requireFeature } from '../../shared/features/store';
import { getHandler, listHandler, type ReadOptions } from '../../shared/http/entity-handlers';
import { qualityRules } from '../../shared/quality/entity';
import { qualityRuleRoutes } from './routes';

const featureOn: ReadOptions = { before: (caller) => requireFeature(caller.tenantId, 'data_quality') };

export const list = listHandler(qualityRuleRoutes.list, qualityRules, featureOn);
export const get = getHandler(qualityRuleRoutes.get, qualityRules, featureOn);
