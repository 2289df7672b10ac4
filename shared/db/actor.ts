import * as z from 'zod';

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

/**
 * An actor as it is stored and as the API shows it (spec 2.2: created_by, last_modified_by):
 * the one schema both the stored items and the responses use.
 */
export const User = z
  .object({
    id: z.string().describe('Client id of the caller'),
    name: z.string().nullable().optional().describe('Description of the client, when it has one'),
  })
  .meta({ id: 'User' });

/** The fields of an authenticated caller that an Actor is made from. */
interface Caller {
  readonly clientId: string;
  readonly name: string | null;
}

/** The actor an authenticated caller writes as: its client id and description. */
export function actorOf(caller: Caller): Actor {
  return { id: caller.clientId, name: caller.name };
}
