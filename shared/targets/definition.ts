import type { ConnectionData } from '../connections/store';
import type { Entity } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import {
  TARGET_CONNECTION_TYPES,
  type TargetCreateRequest,
  type TargetType,
  type TargetUpdateRequest,
} from '../model/target';
import { checkDestination } from './destination';
import type { TargetData } from './items';

type Connection = Entity<ConnectionData>;

/**
 * 30-5003 unless the kind writes through the connection's type, then 30-5002 unless the
 * connection allows writing. Checked on every create and update, and again by exports
 * (store.ts, targetForExport): a connection's write permission can be turned off later.
 */
export function assertWritableThrough(type: TargetType, connection: Connection): void {
  const allowed = TARGET_CONNECTION_TYPES[type];
  if (!allowed.includes(connection.data.type))
    throw new AppError('30-5003', { params: [connection.data.type, allowed.join(' or ')] });
  if (!connection.data.write) throw new AppError('30-5002');
}

const NO_KIND_FIELDS = { path: null, table_name: null, project_path: null, table_path: null } as const;

/** Checks a create or update document against the connection it names; returns what is stored. */
export function targetData(document: TargetCreateRequest | TargetUpdateRequest, connection: Connection): TargetData {
  assertWritableThrough(document.type, connection);
  const common = {
    ...NO_KIND_FIELDS,
    name: document.name,
    description: document.description ?? null,
    tags: document.tags ?? null,
    connection_id: document.connection_id,
  };
  let data: TargetData;
  switch (document.type) {
    case 'bucket':
      data = { ...common, type: document.type, path: document.path.trim() };
      break;
    case 'table':
      data = { ...common, type: document.type, table_name: document.table_name };
      break;
    case 'pricing':
      data = { ...common, type: document.type, project_path: document.project_path, table_path: document.table_path };
      break;
  }
  checkDestination(data, connection);
  return data;
}
