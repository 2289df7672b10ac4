/**
 * The shape of a valid request the contract corpus (test/contract/corpus.ts) varies, and the
 * helpers that turn an entity as GET answers it into the body of a full or partial update.
 */
import type { JsonValue } from './variations';

/** The parts of a valid request the corpus varies. */
export interface Base {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
  readonly mediaType?: string;
  /** Values worth trying in a member of this name besides the generic edges: other enum values. */
  readonly enums?: Readonly<Record<string, readonly JsonValue[]>>;
  /** Whole bodies for edges the generic variations do not reach, by label. */
  readonly bodies?: Readonly<Record<string, JsonValue>>;
}

/** Members a full update may not send back: the audit trail the service keeps itself. */
export const AUDIT_MEMBERS = ['last_modified_by', 'last_modified_date'];

/** The lock_version of an entity as GET answers it. */
export const lockOf = (entity: JsonValue) => (entity as { lock_version: number }).lock_version;

/**
 * The entity without the members named: the body of a full update. One echoed read-only member
 * of each kind is enough to probe them (every value is accepted there); the others would only
 * multiply the cases.
 */
export const echo = (entity: JsonValue, ...omit: string[]) =>
  Object.fromEntries(Object.entries(entity as object).filter(([name]) => !omit.includes(name))) as JsonValue;
