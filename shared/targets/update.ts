import type { Principal } from '../auth/principal';
import { connectionStore } from '../connections/store';
import { actorOf } from '../db/actor';
import type { Entity, RelatedWrite } from '../db/entity-store';
import { AppError, validationError } from '../errors/app-error';
import { mergePatch, type Json } from '../http/merge-patch';
import { describeIssues } from '../http/validation';
import { TargetUpdateRequest } from '../model/target';
import { targetData } from './definition';
import { targetResponse } from './response';
import { noTransferRunning, targetStore, type TargetData } from './store';

/** 30-5001 unless the id in the URL and the id in the body agree. */
export function assertSameTargetId(urlId: number, bodyId: number): void {
  if (urlId !== bodyId) throw new AppError('30-5001', { params: [urlId, bodyId] });
}

/**
 * Applies a full update: every field is replaced and checked against the connection it
 * names, like a create; the kind may change with it. A new connection_id moves the target's
 * use from the old connection to the new one in the same transaction (30-1508 stays true),
 * and the update commits only while no export writes to the target (30-6005).
 */
export async function applyTargetUpdate(
  principal: Principal,
  current: Entity<TargetData>,
  document: TargetUpdateRequest,
): Promise<Entity<TargetData>> {
  const { tenantId } = principal;
  const connection = await connectionStore.get(tenantId, document.connection_id);
  const next = targetData(document, connection);
  const previous = current.data.connection_id;
  const uses: RelatedWrite[] =
    previous === next.connection_id
      ? [connectionStore.unchanged(tenantId, previous, connection.lock_version)]
      : [
          connectionStore.reference(tenantId, previous, 'targets', -1),
          // Validated against the connection as read: it must not have changed since (10-1006).
          connectionStore.reference(tenantId, next.connection_id, 'targets', 1, {
            seenLockVersion: connection.lock_version,
          }),
        ];
  return targetStore.replace(tenantId, actorOf(principal), current, document.lock_version, next, {
    related: [...uses, noTransferRunning(tenantId, current.id)],
  });
}

/** The stored target as an update document (its response without the audit fields): the base a merge patch applies to. */
function updateDocumentOf(current: Entity<TargetData>): Json {
  const {
    created_by: _createdBy,
    created_date: _createdDate,
    last_modified_by: _modifiedBy,
    last_modified_date: _modifiedDate,
    ...document
  } = targetResponse(current);
  return document as Json;
}

/** Merge (RFC 7396) of a patch into the stored target, validated as a full update. */
export function mergedTargetDocument(
  current: Entity<TargetData>,
  patch: Readonly<Record<string, unknown>>,
): TargetUpdateRequest {
  const result = TargetUpdateRequest.safeParse(mergePatch(updateDocumentOf(current), patch), { reportInput: true });
  if (!result.success) throw validationError(describeIssues(result.error.issues));
  return result.data;
}
