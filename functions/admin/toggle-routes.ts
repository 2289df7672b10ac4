import { defineRoute } from '../../shared/http/route';
import {
  DefaultStrategy,
  FeatureToggleList,
  FeatureToggleListQuery,
  FeatureToggleParams,
  FeatureToggleResponse,
  FeatureToggleTenantParams,
  TenantOverrideRequest,
} from '../../shared/model/feature-toggle';

const tag = 'admin';

/** Feature toggles of the admin plane (docs/feature-toggles.md); every route needs platform:admin. */
export const featureToggleRoutes = {
  listToggles: defineRoute({
    operationId: 'listFeatureToggles',
    method: 'GET',
    path: '/admin/feature-toggles',
    summary: 'List feature toggles',
    description:
      'Every feature of the service that can be off, with its default strategy and tenant overrides, in the catalogue’s order unless sorted; ListQuery (offset, limit, sort, filter) pages and selects them. Changes reach every route within a few seconds (docs/decisions.md).',
    tag,
    handler: 'admin/list-toggles',
    permission: 'platform:admin',
    request: { query: FeatureToggleListQuery },
    response: { status: 200, description: 'Every toggle', body: FeatureToggleList },
    errors: [],
    access: { table: 'read' },
  }),
  getToggle: defineRoute({
    operationId: 'getFeatureToggle',
    method: 'GET',
    path: '/admin/feature-toggles/{toggle_name}',
    summary: 'Get a feature toggle',
    tag,
    handler: 'admin/get-toggle',
    permission: 'platform:admin',
    request: { params: FeatureToggleParams },
    response: { status: 200, description: 'The toggle', body: FeatureToggleResponse },
    errors: ['50-1002'],
    access: { table: 'read' },
  }),
  setToggleDefault: defineRoute({
    operationId: 'setFeatureToggleDefault',
    method: 'PUT',
    path: '/admin/feature-toggles/{toggle_name}/default',
    summary: 'Set a feature toggle’s default',
    description:
      'The strategy for tenants without an override: on, off, or on for a percentage of tenants (chosen by a stable hash of toggle and tenant). A toggle whose feature this build lacks cannot be turned on (10-1400).',
    tag,
    handler: 'admin/set-toggle-default',
    permission: 'platform:admin',
    request: { params: FeatureToggleParams, body: DefaultStrategy },
    response: { status: 200, description: 'The toggle as it now stands', body: FeatureToggleResponse },
    errors: ['50-1002'],
    access: { table: 'write' },
  }),
  setToggleOverride: defineRoute({
    operationId: 'setFeatureToggleOverride',
    method: 'PUT',
    path: '/admin/feature-toggles/{toggle_name}/tenants/{tenant_id}',
    summary: 'Set a tenant’s override of a feature toggle',
    description:
      'A tenant override is on or off; percentage and tenant_list are strategies of a rollout across tenants, not of one tenant (50-1005). The tenant must be in the registry (GET /admin/tenants); an unknown one is 50-1003 and nothing is stored.',
    tag,
    handler: 'admin/set-toggle-override',
    permission: 'platform:admin',
    request: { params: FeatureToggleTenantParams, body: TenantOverrideRequest },
    response: { status: 200, description: 'The toggle as it now stands', body: FeatureToggleResponse },
    errors: ['50-1002', '50-1003', '50-1005'],
    access: { table: 'write' },
  }),
  clearToggleOverride: defineRoute({
    operationId: 'clearFeatureToggleOverride',
    method: 'DELETE',
    path: '/admin/feature-toggles/{toggle_name}/tenants/{tenant_id}',
    summary: 'Clear a tenant’s override of a feature toggle',
    description:
      'The tenant follows the default again. Clearing an override that is not set changes nothing; an override stored for a tenant the registry does not know can be cleared too.',
    tag,
    handler: 'admin/clear-toggle-override',
    permission: 'platform:admin',
    request: { params: FeatureToggleTenantParams },
    response: { status: 204, description: 'The override is gone' },
    errors: ['50-1002'],
    access: { table: 'write' },
  }),
};
