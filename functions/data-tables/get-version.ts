import { versionResponse } from '../../shared/data-tables/response';
import { dataVersions } from '../../shared/data-tables/versions';
import { httpHandler } from '../../shared/http/handler';
import { dataVersionExpiration } from '../../shared/retention-policy/expiry';
import { activeRule } from '../../shared/retention-policy/policy';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.getVersion, async ({ params, principal }) => {
  const { tenantId } = principal;
  // Independent reads, side by side: the answer waits for one round trip instead of two.
  const [version, rule] = await Promise.all([
    dataVersions.get(tenantId, params.data_table_id, params.version_number),
    activeRule(tenantId),
  ]);
  // The newest COMPLETED version is read only when a policy can expire anything.
  const kept = rule && (await dataVersions.newestCompleted(tenantId, params.data_table_id))?.version_number;
  return { body: versionResponse(version, dataVersionExpiration(version, rule, kept)) };
});
