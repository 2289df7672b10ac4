import type { ConnectionConfiguration, PublicAuth } from '../connectors/configuration';
import type { DerivedFacts } from '../connectors/validation';
import { auditFieldsOf, type Entity } from '../db/entity-store';
import type { ConnectionResponse, ConnectionTestResult } from '../model/connection';
import type { ConnectionData } from './items';

const PRICING_TYPES = new Set(['pricing_dim', 'pricing_sdk']);

/** Auth as responses show it (spec 2.4): the secret omitted, a sharing profile redacted. */
function visibleAuth(auth: PublicAuth, derived: DerivedFacts): Record<string, unknown> {
  if (auth.auth_type !== 'delta_sharing_profile') return { ...auth };
  return { ...auth, delta_sharing_profile_content_redacted: derived.profile_redacted ?? '' };
}

export function connectionResponse(entity: Entity<ConnectionData>): ConnectionResponse {
  const { data } = entity;
  return {
    id: entity.id,
    lock_version: entity.lock_version,
    type: data.type,
    name: data.name,
    description: data.description,
    tags: data.tags ? [...data.tags] : null,
    read: data.read,
    write: data.write,
    auth: visibleAuth(data.auth, data.derived),
    ...data.settings,
    ...(PRICING_TYPES.has(data.type)
      ? { type_mapping: data.type_mapping, type_mapping_name: data.type_mapping_name }
      : {}),
    ...auditFieldsOf(entity),
  };
}

/** The answer to testing an unsaved configuration: what was tested, secrets omitted. */
export function testResult(
  configuration: ConnectionConfiguration,
  derived: DerivedFacts,
  flags: { read: boolean; write: boolean },
): ConnectionTestResult {
  return {
    type: configuration.type,
    ...flags,
    auth: visibleAuth(configuration.auth, derived),
    ...configuration.settings,
  } as ConnectionTestResult;
}
