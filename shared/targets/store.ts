import { connectionStore, type ConnectionData } from '../connections/store';
import type { Entity, RelatedWrite } from '../db/entity-store';
import { is } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { keys } from '../db/keys';
import { updateItem } from '../db/table';
import { failedAt, transactWrite, tx, type TransactItem } from '../db/transactions';
import { AppError, versionConflict } from '../errors/app-error';
import { defineEntity, entityListFields, listField } from '../http/define-entity';
import type { JobClaim } from '../jobs/job-ref';
import { TargetUpdateRequest } from '../model/target';
import { assertWritableThrough, targetData } from './definition';
import { TargetHead, TargetItemData, type TargetData } from './items';
import { targetResponse } from './response';

export type { TargetData } from './items';

/**
 * The target entity, declared once. Targets have no in-use counters of their own: what keeps
 * one from changing is an export writing to it, recorded on its head item (below), which
 * update and delete check in their transactions (30-6005).
 */
export const targets = defineEntity({
  kind: 'TARGET',
  label: 'target',
  data: TargetItemData,
  references: {},
  response: targetResponse,
  list: entityListFields({
    type: listField.text((entity: Entity<TargetData>) => entity.data.type),
    connection_id: listField.integer((entity: Entity<TargetData>) => entity.data.connection_id),
  }),

  update: {
    document: TargetUpdateRequest,
    idMismatch: (urlId, bodyId) => new AppError('30-5001', { params: [urlId, bodyId] }),
    /**
     * Every field is replaced and checked against the connection it names, like a create; the
     * kind may change with it. A new connection_id moves the target's use from the old
     * connection to the new one in the same transaction (30-1508 stays true), and the update
     * commits only while no export writes to the target (30-6005).
     */
    next: async ({ tenantId }, current, document) => {
      const connection = await connectionStore.get(tenantId, document.connection_id);
      const data = targetData(document, connection);
      const previous = current.data.connection_id;
      const uses: RelatedWrite[] =
        previous === data.connection_id
          ? [connectionStore.unchanged(tenantId, previous, connection.lock_version)]
          : [
              connectionStore.reference(tenantId, previous, 'targets', -1),
              // Validated against the connection as read: it must not have changed since (10-1006).
              connectionStore.reference(tenantId, data.connection_id, 'targets', 1, {
                seenLockVersion: connection.lock_version,
              }),
            ];
      return { data, related: [...uses, noTransferRunning(tenantId, current.id)] };
    },
  },
});

export const targetStore = targets.store;

const head = (tenantId: string, targetId: number) => keys.childrenHead(tenantId, 'TARGET', targetId);
const heads = new ItemType('TARGET', TargetHead);
const transferInProgress = (): AppError => new AppError('30-6005');

/**
 * Commits with a target's update: no export is writing to it (30-6005). Exports claim the
 * head item in a transaction of their own, so either the claim or the update comes first.
 */
export function noTransferRunning(tenantId: string, targetId: number): RelatedWrite {
  return {
    item: tx.check(head(tenantId, targetId), is.absent('transfers')),
    onConditionFailure: transferInProgress,
  };
}

/** Commits with a target's delete: its head item goes too, unless an export is writing to it (30-6005). */
export function headGoesUnlessTransferring(tenantId: string, targetId: number): RelatedWrite {
  return {
    item: tx.delete(head(tenantId, targetId), { when: is.absent('transfers') }),
    onConditionFailure: transferInProgress,
  };
}

/**
 * The writes that claim a target for export job `jobId`, to commit with the export's own
 * write (its create, say) or alone (claimTargetForExport). The target must exist (30-6002)
 * and, with `seenLockVersion`, still be as the caller read it (10-1006): an export that
 * validated the target's destination cannot start after the target changed. Claims are a
 * set of job ids, so a repeated claim by the same job is harmless and several exports may
 * write to one target at once; while any claim stands, update and delete answer 30-6005.
 */
export function targetClaim(
  tenantId: string,
  targetId: number,
  jobId: string,
  options: { readonly seenLockVersion?: number } = {},
): RelatedWrite[] {
  const { seenLockVersion } = options;
  return [
    {
      item: tx.check(
        keys.entity(tenantId, 'TARGET', targetId),
        seenLockVersion === undefined ? is.present('pk') : is.equal('lock_version', seenLockVersion),
        { returnOld: true },
      ),
      onConditionFailure: (current) => (current ? versionConflict() : new AppError('30-6002')),
    },
    {
      item: tx.update(head(tenantId, targetId), { add: { transfers: new Set([jobId]) } }),
      // Unconditional: a claim adds to whatever claims stand.
      onConditionFailure: () => new AppError('10-500'),
    },
  ];
}

/** Claims the target for export job `jobId` (targetClaim), on its own. */
export async function claimTargetForExport(
  tenantId: string,
  targetId: number,
  jobId: string,
  options: { readonly seenLockVersion?: number } = {},
): Promise<void> {
  const writes = targetClaim(tenantId, targetId, jobId, options);
  const outcome = await transactWrite(writes.map((write) => write.item));
  if (outcome.committed) return;
  const refused = failedAt(outcome, 0);
  if (refused) throw writes[0]!.onConditionFailure(refused.item);
  throw new Error(`target ${targetId}: claim cancelled for an unexpected reason`);
}

/**
 * The write that ends export job `jobId`'s claim, to commit with the job's last status write
 * or alone (releaseTarget). Safe to repeat; the head must exist, so a release never creates one.
 */
const released = (jobId: string) => ({ delete: { transfers: new Set([jobId]) } });

export function targetRelease(tenantId: string, targetId: number, jobId: string): TransactItem {
  return tx.update(head(tenantId, targetId), released(jobId), { when: is.present('pk') });
}

/** Where a job's claim on the target stands (JobRef.claim): the job's end releases it in its last transaction. */
export function targetClaimOf(tenantId: string, targetId: number): JobClaim {
  return { item: head(tenantId, targetId), attribute: 'transfers' };
}

/** Ends export job `jobId`'s claim on the target; releasing what is not claimed changes nothing. */
export async function releaseTarget(tenantId: string, targetId: number, jobId: string): Promise<void> {
  // A missing head (the condition failing) has no claim to release.
  await updateItem(head(tenantId, targetId), released(jobId), is.present('pk'));
}

/** The export jobs holding a claim on the target now, in no particular order. */
export async function transfersOf(tenantId: string, targetId: number): Promise<string[]> {
  return [...((await heads.find(head(tenantId, targetId)))?.transfers ?? [])];
}

/**
 * A target and its connection as an export needs them: 30-6002 when the target does not
 * exist, and the connection checked again (30-5003, 30-5002), since its type cannot change
 * but its write permission can after the target was created.
 */
export async function targetForExport(
  tenantId: string,
  targetId: number,
): Promise<{ target: Entity<TargetData>; connection: Entity<ConnectionData> }> {
  const target = await targetStore.find(tenantId, targetId);
  if (!target) throw new AppError('30-6002');
  // The target's reference keeps its connection from being deleted.
  const connection = await connectionStore.get(tenantId, target.data.connection_id);
  assertWritableThrough(target.data.type, connection);
  return { target, connection };
}
