import type { Principal } from '../auth/principal';
import { secretFieldOf, settingsOf, splitAuth, type PublicAuth } from '../connectors/configuration';
import { validateConfiguration } from '../connectors/validation';
import type { Entity } from '../db/entity-store';
import { AppError, validationError } from '../errors/app-error';
import type { Json } from '../http/merge-patch';
import { ConnectionMergedDocument, type ConnectionUpdateRequest } from '../model/connection';
import { seal } from '../secrets/envelope';
import { connections, secretContext, type ConnectionData } from './store';

/** The id in the URL and the id in the body differ. */
const idMismatch = (urlId: number, bodyId: number): AppError => new AppError('30-1600', { params: [urlId, bodyId] });

/** 30-1600 unless the id in the URL and the id in the body agree. */
export function assertSameId(urlId: number, bodyId: number): void {
  if (urlId !== bodyId) throw idMismatch(urlId, bodyId);
}

function assertSameType(current: Entity<ConnectionData>, type: string): void {
  if (type !== current.data.type) {
    throw validationError({ type: `cannot change: connection ${current.id} is of type ${current.data.type}` });
  }
}

/**
 * Connections with their update: a full update document (PUT, and PATCH after merging).
 * Name, description, tags and type-specific fields are replaced (absent means cleared); read
 * and write, when absent, keep their values; auth, when absent, is kept; within the same
 * auth_type an absent secret keeps the stored one. The write is conditional on lock_version.
 */
export const updatableConnections = connections.withUpdate({
  document: ConnectionMergedDocument,
  idMismatch,
  documentOf: mergeBaseOf,
  next: async (principal: Principal, current, document: ConnectionUpdateRequest) => {
    assertSameType(current, document.type);
    const settings = settingsOf(document.type, document);
    let auth: PublicAuth = current.data.auth;
    let newSecret: string | undefined;
    if (document.auth) {
      const split = splitAuth(document.auth as PublicAuth);
      if (split.secret === undefined && split.auth.auth_type !== current.data.auth.auth_type) {
        throw validationError({
          [`auth.${secretFieldOf(split.auth.auth_type)}`]: 'is required when auth_type changes',
        });
      }
      auth = split.auth;
      newSecret = split.secret;
    }
    const derived = validateConfiguration(
      { type: document.type, auth, secret: newSecret, settings },
      current.data.derived,
    );
    const data: ConnectionData = {
      ...current.data,
      name: document.name,
      description: document.description ?? null,
      tags: document.tags ?? null,
      read: document.read ?? current.data.read,
      write: document.write ?? current.data.write,
      auth,
      secret:
        newSecret === undefined
          ? current.data.secret
          : await seal(newSecret, secretContext(principal.tenantId, current.id)),
      settings,
      derived,
    };
    return { data };
  },
});

/** The stored connection as an update document: the base a merge patch applies to. */
function updateDocumentOf(current: Entity<ConnectionData>): Record<string, Json> {
  const { data } = current;
  return {
    id: current.id,
    lock_version: current.lock_version,
    type: data.type,
    name: data.name,
    description: data.description,
    tags: data.tags ? [...data.tags] : null,
    read: data.read,
    write: data.write,
    auth: { ...data.auth } as Json,
    ...data.settings,
  };
}

/**
 * The base a merge (RFC 7396) applies to. A patch whose auth names another auth_type replaces
 * auth as a whole instead of merging into it.
 */
function mergeBaseOf(current: Entity<ConnectionData>, patch: Readonly<Record<string, unknown>>): Json {
  assertSameType(current, String(patch.type));
  const base = updateDocumentOf(current);
  const patchAuth = patch.auth as Record<string, unknown> | null | undefined;
  const switchesAuth =
    typeof patchAuth === 'object' &&
    patchAuth !== null &&
    'auth_type' in patchAuth &&
    patchAuth.auth_type !== current.data.auth.auth_type;
  return switchesAuth ? { ...base, auth: null } : base;
}
