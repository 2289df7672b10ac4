import { bundles } from '../../shared/apps/bundles';
import { requireFeature } from '../../shared/features/store';
import { listHandler } from '../../shared/http/entity-handlers';
import { bundleRoutes } from './bundle-routes';

export const handler = listHandler(bundleRoutes.list, bundles, {
  before: (caller) => requireFeature(caller.tenantId, 'apps'),
});
