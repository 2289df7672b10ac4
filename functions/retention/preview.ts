import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { expiredOfTenant, type Expired } from '../../shared/retention/candidates';
import { retentionNow } from '../../shared/retention/clock';
import { activeRule } from '../../shared/retention-policy/policy';
import { retentionRoutes } from './routes';

const shown = ({ parent_id, version_number, expiration_date }: Expired) => ({
  parent_id,
  version_number,
  expiration_date,
});

export const handler = httpHandler(retentionRoutes.preview, async ({ query, principal }) => {
  const { tenantId } = principal;
  await requireFeature(tenantId, 'retention');
  const asOf = query.as_of === undefined ? retentionNow() : Date.parse(query.as_of);
  const expired = await expiredOfTenant(tenantId, await activeRule(tenantId), asOf);
  return {
    body: {
      as_of: new Date(asOf).toISOString(),
      data_versions: expired.dataVersions
        .map(shown)
        .map(({ parent_id, ...rest }) => ({ data_table_id: parent_id, ...rest })),
      transformation_graphs: expired.graphs
        .map(shown)
        .map(({ parent_id, ...rest }) => ({ dataset_id: parent_id, ...rest })),
    },
  };
});
