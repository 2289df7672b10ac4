import * as z from 'zod';
import { TENANT_ID_PATTERN } from '../db/keys';
import { listEnvelope, listQuery } from './common';
import { FEATURE_TOGGLE_LIST_FIELDS } from './list-fields';

/**
 * Feature toggles of the admin plane (docs/feature-toggles.md): each toggle has a default
 * strategy (on, off, or on for a percentage of tenants) and per-tenant overrides (on or off).
 */

export const TenantIdText = z
  .string()
  .regex(TENANT_ID_PATTERN, { error: 'must be lowercase letters, digits and inner hyphens, at most 63' })
  .describe('Tenant id: lowercase letters, digits and inner hyphens');

/** Flipping strategies a request may name; which one a setting supports is its own rule. */
export const FLIPPING_STRATEGIES = ['on', 'off', 'percentage', 'tenant_list'] as const;

/** A toggle's default: on, off, or on for a stable share of tenants (by a hash of toggle and tenant). */
export const DefaultStrategy = z
  .discriminatedUnion('strategy', [
    z.strictObject({ strategy: z.literal('on') }),
    z.strictObject({ strategy: z.literal('off') }),
    z.strictObject({
      strategy: z.literal('percentage'),
      percentage: z.int().min(0).max(100).describe('Share of tenants the toggle is on for'),
    }),
  ])
  .meta({ id: 'FeatureToggleDefault' });
export type DefaultStrategy = z.infer<typeof DefaultStrategy>;

/** What a tenant override holds: one tenant is either in or out. */
export const OverrideState = z.enum(['on', 'off']);
export type OverrideState = z.infer<typeof OverrideState>;

/**
 * A tenant override request. Every strategy is named so that one a tenant override does not
 * support (percentage, tenant_list) is refused as such (50-1005), not as a malformed body.
 */
export const TenantOverrideRequest = z
  .strictObject({
    strategy: z.enum(FLIPPING_STRATEGIES).describe('on or off; percentage and tenant_list are refused (50-1005)'),
    percentage: z.int().min(0).max(100).optional(),
    tenant_ids: z.array(TenantIdText).max(1000).optional(),
  })
  .meta({ id: 'FeatureToggleOverrideRequest' });

export const FeatureToggleParams = z.strictObject({
  toggle_name: z.string().min(1).max(100).describe('Toggle name, e.g. connector.object_store'),
});
export const FeatureToggleTenantParams = FeatureToggleParams.extend({ tenant_id: TenantIdText });

export const FeatureToggleResponse = z
  .object({
    name: z.string(),
    description: z.string(),
    available: z
      .boolean()
      .describe('False while this build lacks the feature: the toggle is off and cannot be turned on'),
    default: DefaultStrategy,
    overrides: z.array(z.object({ tenant_id: z.string(), strategy: OverrideState })),
  })
  .meta({ id: 'FeatureToggle' });
export type FeatureToggleResponse = z.infer<typeof FeatureToggleResponse>;

export const FeatureToggleList = listEnvelope(FeatureToggleResponse, 'FeatureToggleList');
export const FeatureToggleListQuery = listQuery(FEATURE_TOGGLE_LIST_FIELDS);
