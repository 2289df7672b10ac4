import type { Actor } from '../db/actor';
import type { Entity, RelatedWrite } from '../db/entity-store';
import { is } from '../db/expressions';
import type { IdempotentRequest } from '../db/idempotent-create';
import { ItemType } from '../db/item-type';
import { keys } from '../db/keys';
import { tx } from '../db/transactions';
import { AppError, versionConflict } from '../errors/app-error';
import { defineEntity, ENTITY_LIST_FIELDS, listField } from '../http/define-entity';
import { QuotaContractData, QuotaContractsHead } from './items';
import { quotaResponse } from './response';

export type { QuotaContractData } from './items';
export type QuotaContract = Entity<QuotaContractData>;

/** Quota contracts: entities with names unique per tenant (10-409), never deleted, declared once. */
export const quotaContracts = defineEntity({
  kind: 'QUOTA_CONTRACT',
  label: 'quota contract',
  data: QuotaContractData,
  references: {},
  response: quotaResponse,
  list: {
    id: ENTITY_LIST_FIELDS.id,
    name: ENTITY_LIST_FIELDS.name,
    description: ENTITY_LIST_FIELDS.description,
    tags: ENTITY_LIST_FIELDS.tags,
    overage_allowed: listField.boolean((contract: QuotaContract) => contract.data.overage_allowed),
    created_date: ENTITY_LIST_FIELDS.created_date,
    last_modified_date: ENTITY_LIST_FIELDS.last_modified_date,
  },
});

export const quotaContractStore = quotaContracts.store;

const heads = new ItemType('QUOTA_CONTRACT', QuotaContractsHead);

/** Creates that lost a race with another create of the same tenant are tried again this often. */
const CREATE_ATTEMPTS = 4;

/** The UTC day of `date`, YYYY-MM-DD: the unit of contract windows. */
export function utcDay(date = new Date()): string {
  return date.toISOString().slice(0, 10);
}

const overlapping = (a: QuotaContractData, b: QuotaContractData) =>
  a.start_date < b.end_date && b.start_date < a.end_date;

/** The answer to a window that overlaps another contract's (docs/quota.md): 409 10-409 naming that contract. */
export function overlapError(other: QuotaContract): AppError {
  return new AppError('10-409', {
    params: ['quota contract', 'start_date–end_date window'],
    extraDetails: {
      overlapping_contract_id: other.id,
      start_date: other.data.start_date,
      end_date: other.data.end_date,
    },
  });
}

/** Raised by the head's condition: another contract was created since the overlap check read the contracts. */
const raced = () => versionConflict();

/**
 * Creates a contract whose window overlaps none of the tenant's (10-409). The check reads the
 * contracts after the count on their head item, and the create commits only while that count
 * is as read: of two overlapping creates at once, one commits and the other checks again.
 */
export async function createContract(
  tenantId: string,
  actor: Actor,
  data: QuotaContractData,
  idempotency?: IdempotentRequest,
): Promise<{ readonly contract: QuotaContract; readonly replayed: boolean }> {
  const headKey = keys.quotaContractsHead(tenantId);
  for (let attempt = 1; ; attempt += 1) {
    const count = (await heads.find(headKey))?.contracts ?? 0;
    const conflict = (await quotaContractStore.list(tenantId)).find((other) => overlapping(other.data, data));
    if (conflict) throw overlapError(conflict);
    const counted: RelatedWrite = {
      item: tx.update(headKey, { add: { contracts: 1 } }, { when: is.count('contracts', count) }),
      onConditionFailure: raced,
    };
    try {
      const { entity, replayed } = await quotaContractStore.create(tenantId, actor, () => data, {
        related: [counted],
        ...(idempotency ? { idempotency } : {}),
      });
      return { contract: entity, replayed };
    } catch (error) {
      if (!(error instanceof AppError && error.code === '10-1006') || attempt >= CREATE_ATTEMPTS) throw error;
    }
  }
}

/** The contract whose window holds `day` (start inclusive, end exclusive), if any. */
export async function findActiveContract(tenantId: string, day = utcDay()): Promise<QuotaContract | undefined> {
  const contracts = await quotaContractStore.list(tenantId);
  return contracts.find((contract) => contract.data.start_date <= day && day < contract.data.end_date);
}

/** The active contract, or 10-7003 when the tenant has none today. */
export async function activeContract(tenantId: string): Promise<QuotaContract> {
  const contract = await findActiveContract(tenantId);
  if (!contract) throw new AppError('10-7003');
  return contract;
}

/** Changes the active contract's overage_allowed (10-7003 without one; 10-1006 if it changed meanwhile). */
export async function setOverage(tenantId: string, actor: Actor, overageAllowed: boolean): Promise<QuotaContract> {
  const current = await activeContract(tenantId);
  const next = { ...current.data, overage_allowed: overageAllowed };
  return quotaContractStore.replace(tenantId, actor, current, current.lock_version, next);
}
