/**
 * The single table's keys. Every key starts with the tenant (`T#<tenant>#`), so no query can
 * cross tenants, and only this module spells keys out.
 *
 *   entity           pk T#<t>#<KIND>               sk <id, zero-padded>
 *   name claim       pk T#<t>#<KIND>#NAME          sk <normalised name>
 *   id counter       pk T#<t>#COUNTER              sk <KIND>
 *   idempotency      pk T#<t>#<KIND>#IDEMPOTENCY   sk <Idempotency-Key>
 *   client secret    pk T#<t>#CLIENT               sk <client id>
 *   child collection pk T#<t>#<KIND>#<id>          sk #HEAD (bookkeeping) | V#<n, zero-padded> (versions)
 *   usage counter    pk T#<t>#USAGE                sk <metric>#<period>
 */
export type EntityKind = `${Uppercase<string>}`;

export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

/** Lowercase letters, digits and inner hyphens: safe inside keys and client ids. */
export const TENANT_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const ID_WIDTH = 12;

function tenantPrefix(tenantId: string): string {
  if (!TENANT_ID_PATTERN.test(tenantId)) throw new Error(`invalid tenant id ${JSON.stringify(tenantId)}`);
  return `T#${tenantId}`;
}

/** Case and surrounding space do not make a name different. */
export function normaliseName(name: string): string {
  return name.trim().normalize('NFC').toLowerCase();
}

export const keys = {
  entityPartition: (tenantId: string, kind: EntityKind): string => `${tenantPrefix(tenantId)}#${kind}`,
  entity: (tenantId: string, kind: EntityKind, id: number): ItemKey => ({
    pk: keys.entityPartition(tenantId, kind),
    sk: String(id).padStart(ID_WIDTH, '0'),
  }),
  nameClaim: (tenantId: string, kind: EntityKind, name: string): ItemKey => ({
    pk: `${tenantPrefix(tenantId)}#${kind}#NAME`,
    sk: normaliseName(name),
  }),
  counter: (tenantId: string, kind: EntityKind): ItemKey => ({ pk: `${tenantPrefix(tenantId)}#COUNTER`, sk: kind }),
  idempotency: (tenantId: string, kind: EntityKind, key: string): ItemKey => ({
    pk: `${tenantPrefix(tenantId)}#${kind}#IDEMPOTENCY`,
    sk: key,
  }),
  client: (tenantId: string, clientId: string): ItemKey => ({ pk: `${tenantPrefix(tenantId)}#CLIENT`, sk: clientId }),
  /** The item collection of an entity's children (a data table's versions), next to its head. */
  children: (tenantId: string, kind: EntityKind, id: number): string => `${tenantPrefix(tenantId)}#${kind}#${String(id).padStart(ID_WIDTH, '0')}`,
  childrenHead: (tenantId: string, kind: EntityKind, id: number): ItemKey => ({ pk: keys.children(tenantId, kind, id), sk: '#HEAD' }),
  VERSION_PREFIX: 'V#',
  version: (tenantId: string, kind: EntityKind, id: number, versionNumber: number): ItemKey => ({
    pk: keys.children(tenantId, kind, id),
    sk: `V#${String(versionNumber).padStart(ID_WIDTH, '0')}`,
  }),
  usage: (tenantId: string, metric: string, period: string): ItemKey => ({ pk: `${tenantPrefix(tenantId)}#USAGE`, sk: `${metric}#${period}` }),
};
