import * as z from 'zod';
import { TARGET_TYPES } from '../model/target';

/**
 * The stored data of a target (the `data` of its entity item): the fields of every kind, null
 * where the kind has none.
 *
 * A target's exports in progress are kept on its head item (keys.childrenHead), not here:
 * update and delete check the head in the same transaction (30-6005), and claims are not
 * edits, so they never move lock_version (store.ts).
 */
export const TargetItemData = z.object({
  name: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()).readonly().nullable(),
  connection_id: z.int(),
  type: z.enum(TARGET_TYPES),
  /** bucket: "<bucket>" or "<bucket>/<folder>/...". */
  path: z.string().nullable(),
  /** table. */
  table_name: z.string().nullable(),
  /** pricing. */
  project_path: z.string().nullable(),
  table_path: z.string().nullable(),
});

export type TargetData = z.infer<typeof TargetItemData>;

/** The head item: the ids of the export jobs writing to the target now (a string set; absent when none). */
export const TargetHead = z.object({ transfers: z.set(z.string()).optional() });
