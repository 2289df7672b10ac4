import { auditFieldsOf, type Entity } from '../db/entity-store';
import type { QuotaResponse } from '../model/quota';
import type { QuotaContractData } from './items';

export function quotaResponse(contract: Entity<QuotaContractData>): QuotaResponse {
  const { data } = contract;
  return {
    id: contract.id,
    lock_version: contract.lock_version,
    name: data.name,
    description: data.description,
    tags: data.tags ? [...data.tags] : null,
    start_date: data.start_date,
    end_date: data.end_date,
    cpu_time_hours: data.cpu_time_hours,
    data_transfer_gb: data.data_transfer_gb,
    overage_allowed: data.overage_allowed,
    ...auditFieldsOf(contract),
  };
}
