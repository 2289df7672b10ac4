import type { Entity } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import { defineEntity, entityListFields, listField } from '../http/define-entity';
import type { EncryptionContext } from '../secrets/envelope';
import { ConnectionItemData, type ConnectionData } from './items';
import { connectionResponse } from './response';

export type { ConnectionData } from './items';

/**
 * What references a connection: the data tables that read it through their data sources
 * (30-1507), its targets (30-1508), and its data sources, which do not keep it from being
 * deleted but go with it when no table reads them (data-sources/connection-delete.ts).
 */
export type ConnectionReference = 'tables' | 'data_sources' | 'targets';

type Listed = Entity<ConnectionData>;

/**
 * The connection entity, declared once; its update is declared in update.ts (withUpdate), so
 * that the modules that only read connections do not carry the configuration's checks.
 */
export const connections = defineEntity({
  kind: 'CONNECTION',
  label: 'connection',
  data: ConnectionItemData,
  // Checked in this order: with tables and targets, the tables' use is named.
  references: {
    tables: (id: number) => new AppError('30-1507', { params: [id] }),
    data_sources: 'cascade' as const,
    targets: (id: number) => new AppError('30-1508', { params: [id] }),
  } satisfies Record<ConnectionReference, unknown>,
  response: connectionResponse,
  list: entityListFields({
    type: listField.text((entity: Listed) => entity.data.type),
    read: listField.boolean((entity: Listed) => entity.data.read),
    write: listField.boolean((entity: Listed) => entity.data.write),
  }),
});

export const connectionStore = connections.store;

/** Binds a sealed secret to its tenant and connection. */
export function secretContext(tenantId: string, connectionId: number): EncryptionContext {
  return { tenant_id: tenantId, entity: 'connection', entity_id: String(connectionId) };
}
