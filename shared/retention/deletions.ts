import * as z from 'zod';
import { is } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { keys } from '../db/keys';
import { deleteItem, putItem, updateItem } from '../db/table';
import { transactWrite, tx } from '../db/transactions';

/**
 * The sweep's record of what it deletes, in the tenant's RETENTION_DELETION records. A
 * deletion is written PENDING before the version's item goes and becomes DELETED once its
 * files are gone too, so a sweep that dies in between leaves a PENDING record, which the next
 * sweep finishes first: no file outlives its item. The DELETED record is written only if
 * absent, so each deletion is recorded (and reported) once, however many sweeps ran it.
 */
const KIND = 'RETENTION_DELETION';

export const DeletedThing = z.enum(['DATA_VERSION', 'TRANSFORMATION_GRAPH']);
export type DeletedThing = z.infer<typeof DeletedThing>;

export const Deletion = z.object({
  subject: DeletedThing,
  /** The data table or the dataset. */
  parent_id: z.int(),
  version_number: z.int(),
  expiration_date: z.string(),
  sweep_id: z.string(),
  started_date: z.string(),
  deleted_date: z.string().optional(),
  /** Why the last attempt did not finish (20-1063): the next sweep tries again. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type Deletion = z.infer<typeof Deletion>;

const items = new ItemType(KIND, Deletion);
const PENDING = 'P#';
const DELETED = 'D#';

const idOf = (state: string, deletion: Pick<Deletion, 'subject' | 'parent_id' | 'version_number'>) =>
  `${state}${deletion.subject}#${String(deletion.parent_id).padStart(12, '0')}#${String(deletion.version_number).padStart(12, '0')}`;

export const deletions = {
  /** Records that a deletion begins (again, when a sweep that began it died). */
  async begin(tenantId: string, deletion: Deletion): Promise<void> {
    await putItem(keys.record(tenantId, KIND, idOf(PENDING, deletion)), items.attributes(deletion, { kind: KIND }));
  },

  /** The deletion did not happen (the version is in use, or no longer expired). */
  async drop(tenantId: string, deletion: Deletion): Promise<void> {
    await deleteItem(keys.record(tenantId, KIND, idOf(PENDING, deletion)));
  },

  /** Notes why the files could not go: the record stays PENDING for the next sweep. */
  async failed(tenantId: string, deletion: Deletion, error: { code: string; message: string }): Promise<void> {
    await updateItem(keys.record(tenantId, KIND, idOf(PENDING, deletion)), items.changes({ set: { error } }));
  },

  /** The deletion is complete: true when this call recorded it, false when another sweep had. */
  async complete(tenantId: string, deletion: Deletion, deletedDate: string): Promise<boolean> {
    const { error: _previous, ...done } = { ...deletion, deleted_date: deletedDate };
    const pending = keys.record(tenantId, KIND, idOf(PENDING, deletion));
    const outcome = await transactWrite([
      tx.delete(pending),
      tx.put(keys.record(tenantId, KIND, idOf(DELETED, deletion)), items.attributes(done, { kind: KIND }), {
        when: is.absent('pk'),
      }),
    ]);
    if (outcome.committed) return true;
    await deleteItem(pending);
    return false;
  },

  /** The deletions a sweep began and did not finish. */
  pending(tenantId: string): Promise<Deletion[]> {
    return items.query(keys.recordPartition(tenantId, KIND), PENDING);
  },

  /** The deletions done, by subject, parent and version. */
  done(tenantId: string): Promise<Deletion[]> {
    return items.query(keys.recordPartition(tenantId, KIND), DELETED);
  },
};
