import { EntityStore } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import type { EncryptionContext } from '../secrets/envelope';
import { ConnectionItemData, type ConnectionData } from './items';

export type { ConnectionData } from './items';

/**
 * What references a connection: the data tables that read it through their data sources
 * (30-1507), its targets (30-1508), and its data sources, which do not keep it from being
 * deleted but go with it when no table reads them (data-sources/connection-delete.ts).
 */
export type ConnectionReference = 'tables' | 'data_sources' | 'targets';

export const connectionStore = new EntityStore<ConnectionData, ConnectionReference>({
  kind: 'CONNECTION',
  label: 'connection',
  data: ConnectionItemData,
  // Checked in this order: with tables and targets, the tables' use is named.
  references: {
    tables: (id) => new AppError('30-1507', { params: [id] }),
    data_sources: 'cascade',
    targets: (id) => new AppError('30-1508', { params: [id] }),
  },
});

/** Binds a sealed secret to its tenant and connection. */
export function secretContext(tenantId: string, connectionId: number): EncryptionContext {
  return { tenant_id: tenantId, entity: 'connection', entity_id: String(connectionId) };
}
