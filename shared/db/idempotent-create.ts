import * as z from 'zod';
import { validationError } from '../errors/app-error';
import { anyOf, is, type Condition } from './expressions';
import { parseItem } from './items';
import { ENTITY_KINDS, keys, type CreatedKind, type RecordKind } from './keys';
import { readItem } from './table';
import { tx, type TransactItem } from './transactions';

/**
 * Idempotent creates of entities: the create's transaction also writes a record of the
 * Idempotency-Key naming the new entity; a retry with the same key and request finds the
 * record and answers with that entity instead of creating a second one. Records live 24 h.
 */

export interface IdempotentRequest {
  /** The caller's Idempotency-Key header. */
  readonly key: string;
  /** Digest of the request; a key reused with another request is refused. */
  readonly fingerprint: string;
}

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** The id of what a create of `kind` makes: an entity's integer, a record's own string key (an API client's id). */
export type CreatedId<K extends CreatedKind> = K extends RecordKind ? string : number;

/** The record of a create (keys.idempotency under the created kind). */
function createRecord(kind: CreatedKind) {
  return z.object({
    fingerprint: z.string(),
    entity_id: ENTITY_KINDS[kind] === 'entity' ? z.int() : z.string().min(1),
    /** Epoch seconds; the table's TTL removes the record some time after. */
    expires_at: z.int(),
  });
}
type CreateRecord = z.infer<ReturnType<typeof createRecord>>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** No live record holds the key at `now` (epoch seconds): none, or one past its expiry. */
export const unclaimedAt = (now: number): Condition => anyOf(is.absent('pk'), is.less('expires_at', now));

/** The Put of the record, in the create's transaction; refused while an unexpired record holds the key. */
export function createRecordWrite<K extends CreatedKind>(
  tenantId: string,
  kind: K,
  request: IdempotentRequest,
  entityId: CreatedId<K>,
): TransactItem {
  const record: CreateRecord = {
    fingerprint: request.fingerprint,
    entity_id: entityId,
    expires_at: nowSeconds() + IDEMPOTENCY_TTL_SECONDS,
  };
  return tx.put(keys.idempotency(tenantId, kind, request.key), record, {
    when: unclaimedAt(nowSeconds()),
    returnOld: true,
  });
}

/** The entity an earlier create with this key made, if its record is still alive. */
export async function earlierCreate<K extends CreatedKind>(
  tenantId: string,
  kind: K,
  request: IdempotentRequest,
): Promise<CreatedId<K> | undefined> {
  const item = await readItem(keys.idempotency(tenantId, kind, request.key));
  if (!item) return undefined;
  const record = parseItem(createRecord(kind), kind, item);
  return record.expires_at < nowSeconds() ? undefined : entityIdOf<K>(request, record);
}

/**
 * The entity named by the record a create found in its way when it lost the race for the
 * key (the transaction returns it); 10-1400 when the record is of another request.
 */
export function replayedEntityId<K extends CreatedKind>(
  kind: K,
  request: IdempotentRequest,
  item: Record<string, unknown> | undefined,
): CreatedId<K> {
  return entityIdOf<K>(request, item ? parseItem(createRecord(kind), kind, item) : undefined);
}

function entityIdOf<K extends CreatedKind>(request: IdempotentRequest, record: CreateRecord | undefined): CreatedId<K> {
  if (!record || record.fingerprint !== request.fingerprint) {
    throw validationError({ 'Idempotency-Key': 'already used with a different request' });
  }
  // Parsed with the schema of its kind's ids (createRecord), so it is of that type.
  return record.entity_id as CreatedId<K>;
}
