import { versionView } from '../../shared/data-tables/views';
import { httpHandler } from '../../shared/http/handler';
import { acceptQualityFailure } from '../../shared/quality-targets/accept';
import { qualityRuleRoutes } from './routes';

export const handler = httpHandler(qualityRuleRoutes.accept, async ({ params, body, principal }) => {
  await acceptQualityFailure(principal, params.data_table_id, params.version_number, body.reason ?? null);
  return { body: await versionView(principal.tenantId, params.data_table_id, params.version_number) };
});
