import * as z from 'zod';
import { validationError, type AppError } from '../errors/app-error';
import { IDEMPOTENCY_TTL_SECONDS, unclaimedAt, type IdempotentRequest } from './idempotent-create';
import { parseItem } from './items';
import { keys, type OperationKind } from './keys';
import { deleteItem, putItem, readItem, updateItem } from './table';

/** The record of an operation's Idempotency-Key: claimed RUNNING, then DONE with the answer. */
function responseRecord<T>(answer: z.ZodType<T>) {
  const claim = { fingerprint: z.string(), expires_at: z.int() };
  return z.discriminatedUnion('state', [
    z.object({ ...claim, state: z.literal('RUNNING') }),
    z.object({ ...claim, state: z.literal('DONE'), body: answer }),
  ]);
}

/**
 * Idempotency-Key for operations whose effect is not one entity (a batch of imports): the
 * first request claims the key and stores its answer; a retry with the same key and body gets
 * that answer again instead of doing the work twice. A retry while the first is still running
 * is refused with `busy`; a key reused with another body is 10-1400. A request that fails
 * releases its claim, so it can be retried.
 */
export async function idempotentResponse<T>(
  tenantId: string,
  operation: OperationKind,
  /** The answer's schema: a replayed answer is parsed with it like any stored item. */
  answer: z.ZodType<T>,
  request: IdempotentRequest | undefined,
  busy: () => AppError,
  run: () => Promise<T>,
): Promise<{ readonly body: T; readonly replayed: boolean }> {
  if (!request) return { body: await run(), replayed: false };
  const key = keys.idempotency(tenantId, operation, request.key);
  const now = Math.floor(Date.now() / 1000);
  const claim = { fingerprint: request.fingerprint, state: 'RUNNING', expires_at: now + IDEMPOTENCY_TTL_SECONDS };
  if (!(await putItem(key, claim, unclaimedAt(now)))) {
    const item = await readItem(key);
    if (!item) throw busy();
    const earlier = parseItem(responseRecord(answer), operation, item);
    if (earlier.fingerprint !== request.fingerprint)
      throw validationError({ 'Idempotency-Key': 'already used with a different request' });
    if (earlier.state !== 'DONE') throw busy();
    return { body: earlier.body, replayed: true };
  }
  let body: T;
  try {
    body = await run();
  } catch (error) {
    await deleteItem(key);
    throw error;
  }
  await updateItem(key, { set: { state: 'DONE', body } });
  return { body, replayed: false };
}
