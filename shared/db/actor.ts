/**
 * Who did something, as the audit fields of every stored entity name it.
 *
 * Actor and actorOf live here, beside the store that stamps them, rather than in auth/: the
 * database layer must not import anything above it, while everything that knows a Principal
 * stands above the database. actorOf therefore takes the caller by its shape; a Principal
 * fits it.
 */
export interface Actor {
  readonly id: string;
  readonly name?: string | null;
}

/** The fields of an authenticated caller that an Actor is made from. */
interface Caller {
  readonly clientId: string;
  readonly name: string | null;
}

/** The actor an authenticated caller writes as: its client id and description. */
export function actorOf(caller: Caller): Actor {
  return { id: caller.clientId, name: caller.name };
}
