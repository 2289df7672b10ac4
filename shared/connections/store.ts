import { EntityStore } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import type { EncryptionContext } from '../secrets/envelope';
import { ConnectionItemData, type ConnectionData } from './items';

export type { ConnectionData } from './items';

/** What references a connection and so keeps it from being deleted. */
export type ConnectionReference = 'data_sources' | 'targets';

export const connectionStore = new EntityStore<ConnectionData, ConnectionReference>({
  kind: 'CONNECTION',
  label: 'connection',
  data: ConnectionItemData,
  references: {
    data_sources: (id) => new AppError('30-1507', { params: [id] }),
    targets: (id) => new AppError('30-1508', { params: [id] }),
  },
});

/** Binds a sealed secret to its tenant and connection. */
export function secretContext(tenantId: string, connectionId: number): EncryptionContext {
  return { tenant_id: tenantId, entity: 'connection', entity_id: String(connectionId) };
}
