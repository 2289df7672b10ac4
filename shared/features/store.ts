import { createHash } from 'node:crypto';
import * as z from 'zod';
import { perStores } from '../aws/per-stores';
import { PlatformRecords } from '../db/platform-records';
import { AppError, validationError } from '../errors/app-error';
import { DefaultStrategy, OverrideState, type FeatureToggleResponse } from '../model/feature-toggle';
import type { ConnectionType } from '../model/connection';
import { CONNECTOR_TOGGLES, FEATURE_NAMES, FEATURE_TOGGLES, isFeatureName, type FeatureName } from './catalogue';

/**
 * Feature toggle settings, stored as platform records: one record per toggle default that was
 * set, one per tenant override. Readers evaluate a snapshot of all of them, which each
 * function instance keeps for at most TOGGLE_CACHE_MS (docs/decisions.md): a change reaches
 * every route within that bound, and a request costs no read while the snapshot is fresh.
 */
export const TOGGLE_CACHE_MS = 2_000;

const ToggleSetting = z.union([
  z.object({ name: z.string(), tenant_id: z.null(), default: DefaultStrategy }),
  z.object({ name: z.string(), tenant_id: z.string(), state: OverrideState }),
]);
type ToggleSetting = z.infer<typeof ToggleSetting>;

const settings = new PlatformRecords('FEATURE_TOGGLE', ToggleSetting);

const overrideId = (name: FeatureName, tenantId: string) => `${name}#T#${tenantId}`;

interface ToggleState {
  readonly default: DefaultStrategy;
  readonly overrides: ReadonlyMap<string, OverrideState>;
}
type Snapshot = ReadonlyMap<FeatureName, ToggleState>;

function snapshotOf(records: readonly ToggleSetting[]): Snapshot {
  const states = new Map<FeatureName, { default: DefaultStrategy; overrides: Map<string, OverrideState> }>(
    FEATURE_NAMES.map((name) => [
      name,
      { default: { strategy: FEATURE_TOGGLES[name].onByDefault ? 'on' : 'off' }, overrides: new Map() },
    ]),
  );
  for (const record of records) {
    // A record of a toggle this build no longer has is left alone.
    const state = isFeatureName(record.name) ? states.get(record.name) : undefined;
    if (state === undefined) continue;
    if (record.tenant_id === null) state.default = record.default;
    else state.overrides.set(record.tenant_id, record.state);
  }
  return states;
}

interface Cached {
  entry?: { readonly readAt: number; readonly snapshot: Promise<Snapshot> };
}
const cacheOfStores = perStores((): Cached => ({}));

function currentSnapshot(now = Date.now()): Promise<Snapshot> {
  const cache = cacheOfStores();
  if (cache.entry === undefined || now - cache.entry.readAt >= TOGGLE_CACHE_MS) {
    const snapshot = settings.list().then(snapshotOf);
    const entry = { readAt: now, snapshot };
    // A failed read is not kept: the next request reads again.
    snapshot.catch(() => {
      if (cache.entry === entry) cache.entry = undefined;
    });
    cache.entry = entry;
  }
  return cache.entry.snapshot;
}

/** The stable bucket (0..99) of a tenant for a toggle: a percentage rollout keeps the tenants it took. */
function bucketOf(name: FeatureName, tenantId: string): number {
  return createHash('sha256').update(`${name}\n${tenantId}`).digest().readUInt32BE(0) % 100;
}

function isOn(name: FeatureName, tenantId: string, state: ToggleState): boolean {
  if (!FEATURE_TOGGLES[name].available) return false;
  const override = state.overrides.get(tenantId);
  if (override !== undefined) return override === 'on';
  switch (state.default.strategy) {
    case 'on':
      return true;
    case 'off':
      return false;
    case 'percentage':
      return bucketOf(name, tenantId) < state.default.percentage;
  }
}

/** Whether the feature is on for the tenant, as this instance's snapshot (at most TOGGLE_CACHE_MS old) says. */
export async function isFeatureOn(tenantId: string, name: FeatureName): Promise<boolean> {
  const snapshot = await currentSnapshot();
  return isOn(name, tenantId, snapshot.get(name)!);
}

/** The answer for a feature that is off: 10-1501 naming its toggle. */
export function featureOff(name: FeatureName): AppError {
  return new AppError('10-1501', { params: [name] });
}

/** Refuses (10-1501 naming the toggle) unless the feature is on for the tenant. */
export async function requireFeature(tenantId: string, name: FeatureName): Promise<void> {
  if (!(await isFeatureOn(tenantId, name))) throw featureOff(name);
}

/** Refuses (10-1501 naming the toggle) unless the connector of this connection type is on for the tenant. */
export function requireConnector(tenantId: string, type: ConnectionType): Promise<void> {
  return requireFeature(tenantId, CONNECTOR_TOGGLES[type]);
}

/** The toggle of this name, or 50-1002. */
export function toggleNamed(name: string): FeatureName {
  if (!isFeatureName(name)) throw new AppError('50-1002', { extraDetails: { toggle_name: name } });
  return name;
}

/** An unavailable feature stays off: nothing may turn it on for anyone. */
function assertCanTurnOn(name: FeatureName, field: string): void {
  if (!FEATURE_TOGGLES[name].available)
    throw validationError({ [field]: `feature ${name} is not available in this build; it stays off` });
}

/** Every toggle as it stands, read from the store (not the snapshot): the admin plane sees its own writes. */
export async function toggleViews(): Promise<FeatureToggleResponse[]> {
  const snapshot = snapshotOf(await settings.list());
  return FEATURE_NAMES.map((name) => {
    const state = snapshot.get(name)!;
    return {
      name,
      description: FEATURE_TOGGLES[name].description,
      available: FEATURE_TOGGLES[name].available,
      default: state.default,
      overrides: [...state.overrides]
        .map(([tenant_id, strategy]) => ({ tenant_id, strategy }))
        .sort((a, b) => a.tenant_id.localeCompare(b.tenant_id)),
    };
  });
}

export async function toggleView(name: FeatureName): Promise<FeatureToggleResponse> {
  return (await toggleViews()).find((view) => view.name === name)!;
}

/** Stores the toggle's default. This instance's snapshot is dropped; others see it within TOGGLE_CACHE_MS. */
export async function setToggleDefault(name: FeatureName, strategy: DefaultStrategy): Promise<void> {
  if (strategy.strategy === 'on' || (strategy.strategy === 'percentage' && strategy.percentage > 0))
    assertCanTurnOn(name, 'strategy');
  await settings.put(name, { name, tenant_id: null, default: strategy });
  cacheOfStores().entry = undefined;
}

export async function setToggleOverride(name: FeatureName, tenantId: string, state: OverrideState): Promise<void> {
  if (state === 'on') assertCanTurnOn(name, 'strategy');
  await settings.put(overrideId(name, tenantId), { name, tenant_id: tenantId, state });
  cacheOfStores().entry = undefined;
}

export async function clearToggleOverride(name: FeatureName, tenantId: string): Promise<void> {
  await settings.remove(overrideId(name, tenantId));
  cacheOfStores().entry = undefined;
}
