import type { Principal } from '../auth/principal';
import { connectionStore } from '../connections/store';
import { actorOf } from '../db/actor';
import type { Entity, RelatedWrite } from '../db/entity-store';
import { AppError, validationError } from '../errors/app-error';
import { mergePatch, type Json } from '../http/merge-patch';
import { describeIssues } from '../http/validation';
import { DataSourceUpdateRequest } from '../model/data-source';
import { dataSourceData } from './definition';
import { dataSourceResponse } from './response';
import { dataSourceStore, type DataSourceData } from './store';

/** 20-1004 unless the id in the URL and the id in the body agree. */
export function assertSameId(urlId: number, bodyId: number): void {
  if (urlId !== bodyId) throw new AppError('20-1004');
}

/** Both spellings of the delta-sharing kind name the same type. */
const typeOf = (type: string): string => (type === 'delta sharing' ? 'delta_sharing' : type);

/**
 * The kind cannot change: data tables imported from a source assume its kind (files or a
 * query result); another kind is another data source.
 */
function assertSameType(current: Entity<DataSourceData>, type: string): void {
  if (typeOf(type) !== current.data.type) {
    throw validationError({ type: `cannot change: data source ${current.id} is of type ${current.data.type}` });
  }
}

/**
 * Applies a full update document (PUT, and PATCH after merging): every field is replaced and
 * checked against the connection it names, like a create. A new connection_id moves the
 * data source's reference, and those of the tables reading it, from the old connection to
 * the new one in the same transaction, so the counts that guard a connection's delete hold.
 */
export async function applyUpdate(
  principal: Principal,
  current: Entity<DataSourceData>,
  document: DataSourceUpdateRequest,
): Promise<Entity<DataSourceData>> {
  assertSameType(current, document.type);
  const { tenantId } = principal;
  const connection = await connectionStore.get(tenantId, document.connection_id);
  const next = dataSourceData(document, connection, current.id);
  const previous = current.data.connection_id;
  if (previous === next.connection_id) {
    return dataSourceStore.replace(tenantId, actorOf(principal), current, document.lock_version, next, {
      related: [connectionStore.unchanged(tenantId, previous, connection.lock_version)],
    });
  }
  // The tables reading the data source move with it (30-1507 follows them): as many as read,
  // which the data source's own counter must still hold when the move commits.
  const tables = current.refs.data_tables ?? 0;
  const related: RelatedWrite[] = [
    connectionStore.counters(tenantId, previous, { data_sources: -1, ...(tables > 0 ? { tables: -tables } : {}) }),
    // Validated against the connection as read: it must not have changed since (10-1006).
    connectionStore.counters(
      tenantId,
      next.connection_id,
      { data_sources: 1, ...(tables > 0 ? { tables } : {}) },
      { seenLockVersion: connection.lock_version },
    ),
  ];
  return dataSourceStore.replace(tenantId, actorOf(principal), current, document.lock_version, next, {
    related,
    refsAsRead: ['data_tables'],
  });
}

/** The stored data source as an update document (its response without the audit fields): the base a merge patch applies to. */
function updateDocumentOf(current: Entity<DataSourceData>): Json {
  const {
    created_by: _createdBy,
    created_date: _createdDate,
    last_modified_by: _modifiedBy,
    last_modified_date: _modifiedDate,
    ...document
  } = dataSourceResponse(current);
  return document as Json;
}

/** Merge (RFC 7396) of a patch into the stored data source, validated as a full update. */
export function mergedDocument(
  current: Entity<DataSourceData>,
  patch: Readonly<Record<string, unknown>>,
): DataSourceUpdateRequest {
  assertSameType(current, String(patch.type));
  const result = DataSourceUpdateRequest.safeParse(mergePatch(updateDocumentOf(current), patch), { reportInput: true });
  if (!result.success) throw validationError(describeIssues(result.error.issues));
  return result.data;
}
