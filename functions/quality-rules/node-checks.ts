import { graphs } from '../../shared/datasets/graphs';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { nodeCheckPage } from '../../shared/quality/node-history';
import { qualityRuleRoutes } from './routes';

/** GET .../nodes/{node_id}/quality-checks: the node's check history in the graph version (shared/quality/node-history.ts). */
export const handler = httpHandler(qualityRuleRoutes.nodeChecks, async ({ params, query, principal }) => {
  const { tenantId } = principal;
  await requireFeature(tenantId, 'data_quality');
  // 10-404 for a dataset or graph version that is not the tenant's.
  await graphs.get(tenantId, params.dataset_id, params.version_number);
  return { body: await nodeCheckPage(tenantId, params.dataset_id, params.version_number, params.node_id, query) };
});
