import type { ConnectionData } from '../../../shared/connections/store';
import type { Entity } from '../../../shared/db/entity-store';
import type { ConnectionType } from '../../../shared/model/connection';
import type { TargetData } from '../../../shared/targets/items';

/** A stored writable connection of `type` with `settings` (a path restriction, say), as the destination rules read it. */
export function connection(type: ConnectionType, settings: Record<string, string | null> = {}): Entity<ConnectionData> {
  return {
    id: 1,
    lock_version: 0,
    data: {
      name: 'c',
      description: null,
      tags: null,
      type,
      read: true,
      write: true,
      auth: { auth_type: 'secret_key' },
      secret: { v: 1, key: 'k', iv: 'i', tag: 't', data: 'd' },
      settings,
      type_mapping: null,
      type_mapping_name: null,
      derived: {},
    },
    refs: {},
    mirrors: {},
    created_by: { id: 'u' },
    created_date: '2026-01-01T00:00:00.000Z',
    last_modified_by: { id: 'u' },
    last_modified_date: '2026-01-01T00:00:00.000Z',
  };
}

/** Stored target data: a table target with no destination unless `fields` say otherwise. */
export const target = (fields: Partial<TargetData>): TargetData => ({
  name: 't',
  description: null,
  tags: null,
  connection_id: 1,
  type: 'table',
  path: null,
  table_name: null,
  project_path: null,
  table_path: null,
  ...fields,
});
