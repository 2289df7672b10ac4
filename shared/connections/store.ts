import type { Principal } from '../auth/principal';
import { EntityStore, type Actor } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import type { ConnectionType } from '../model/connection';
import type { DerivedFacts } from '../connectors/validation';
import type { EncryptionContext, SealedSecret } from '../secrets/envelope';
import type { PublicAuth, Settings } from './configuration';

/** A stored connection. The secret is sealed; everything else may be shown. */
export interface ConnectionData {
  readonly name: string;
  readonly description: string | null;
  readonly tags: readonly string[] | null;
  readonly type: ConnectionType;
  readonly read: boolean;
  readonly write: boolean;
  readonly auth: PublicAuth;
  readonly secret: SealedSecret;
  readonly settings: Settings;
  readonly type_mapping: Readonly<Record<string, string>> | null;
  readonly type_mapping_name: string | null;
  readonly derived: DerivedFacts;
}

/** What references a connection and so keeps it from being deleted. */
export type ConnectionReference = 'data_sources' | 'targets';

export const connectionStore = new EntityStore<ConnectionData, ConnectionReference>({
  kind: 'CONNECTION',
  label: 'connection',
  references: {
    data_sources: (id) => new AppError('30-1507', { params: [id] }),
    targets: (id) => new AppError('30-1508', { params: [id] }),
  },
});

/** Binds a sealed secret to its tenant and connection. */
export function secretContext(tenantId: string, connectionId: number): EncryptionContext {
  return { tenant_id: tenantId, entity: 'connection', entity_id: String(connectionId) };
}

export function actorOf(principal: Principal): Actor {
  return { id: principal.clientId, name: principal.name };
}
