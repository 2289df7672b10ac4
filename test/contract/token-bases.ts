/**
 * The valid requests of the tenant token and role operations, apart from
 * test/contract/corpus.ts to keep each module small: a token to read, and a spare for the delete.
 */
import type { OperationId } from '../../functions/routes';
import type { JsonValue } from './variations';

/** The tokens the corpus aims at, made beforehand. */
export interface TokenFixtures {
  readonly clientId: string;
  /** A token nothing uses, for the delete. */
  readonly spareClientId: string;
}

/** The parts of a valid request the corpus varies (the Base of test/contract/corpus.ts). */
export interface TokenBase {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
  readonly bodies?: Readonly<Record<string, JsonValue>>;
}

export function tokenBases(f: TokenFixtures): Partial<Readonly<Record<OperationId, TokenBase>>> {
  const body = { description: 'contract token', role_names: ['viewer'], expiration: 'P30D' };
  return {
    createToken: {
      body,
      bodies: {
        'expiration as a date-time': { ...body, expiration: new Date(Date.now() + 30 * 86_400_000).toISOString() },
        'expiration as a week and hours': { ...body, expiration: 'P1WT12H' },
        'expiration as a bare date': { ...body, expiration: '2030-01-31' },
        'expiration padded': { ...body, expiration: ' P30D ' },
      },
    },
    listTokens: { query: { limit: '5' } },
    getToken: { params: { client_id: f.clientId } },
    deleteToken: { params: { client_id: f.spareClientId } },
    listRoles: { query: { limit: '5' } },
  };
}
