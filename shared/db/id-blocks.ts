import { storesInUse } from '../aws/per-stores';
import { keys, type TopLevelKind } from './keys';
import { addToCounter } from './table';

/**
 * Entity ids by blocks: one atomic ADD on the id counter (keys.counter) reserves ID_BLOCK_SIZE
 * ids for this warm function, and its next creates of that tenant and kind take theirs without
 * a write of their own, so a create is one transaction (issue 28: ≤ 1 write call). Ids stay the
 * integers the counter hands out, never reused; what changes is that ids another function
 * reserved, or this one did not use before it ended, are skipped (creates that failed already
 * left such gaps), and that with several functions creating at once id order is only roughly
 * creation order.
 */
export const ID_BLOCK_SIZE = 10;

/** Bounded, as every per-function cache: the oldest reservation goes first. */
const MAX_BLOCKS = 1000;

interface Block {
  next: number;
  readonly last: number;
}

/** By store (a test process starts several twins), tenant and kind. */
const blocks = new Map<string, Promise<Block>>();

const blockKey = (tenantId: string, kind: TopLevelKind): string => [storesInUse(), tenantId, kind].join('|');

async function reserve(tenantId: string, kind: TopLevelKind): Promise<Block> {
  const last = await addToCounter(keys.counter(tenantId, kind), 'value', ID_BLOCK_SIZE);
  return { next: last - ID_BLOCK_SIZE + 1, last };
}

/** A new id for an entity of `kind` in `tenantId`: from this function's block, or from a new block. */
export async function allocateId(tenantId: string, kind: TopLevelKind): Promise<number> {
  const key = blockKey(tenantId, kind);
  for (;;) {
    // Concurrent creates share one reservation: they await the same promise, then take ids in turn.
    const reservation = blocks.get(key) ?? reserveInto(key, tenantId, kind);
    const block = await reservation;
    if (block.next <= block.last) return block.next++;
    // Used up: the first create to see it reserves the next block; the others wait on that one.
    if (blocks.get(key) === reservation) blocks.delete(key);
  }
}

function reserveInto(key: string, tenantId: string, kind: TopLevelKind): Promise<Block> {
  const reservation = reserve(tenantId, kind);
  reservation.catch(() => {
    if (blocks.get(key) === reservation) blocks.delete(key);
  });
  if (blocks.size >= MAX_BLOCKS) blocks.delete(blocks.keys().next().value as string);
  blocks.set(key, reservation);
  return reservation;
}

/**
 * Forgets this function's block of `tenantId` and `kind`: an id from it was found taken, which
 * only happens when the store is not the one the block was reserved in (a test's new twin).
 */
export function forgetIdBlock(tenantId: string, kind: TopLevelKind): void {
  blocks.delete(blockKey(tenantId, kind));
}
