import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { QUOTA_LIST_FIELDS } from '../../shared/model/quota';
import { quotaResponse } from '../../shared/quota/response';
import { quotaContractStore, type QuotaContract } from '../../shared/quota/store';
import { quotaRoutes } from './routes';

/** What a contract list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<QuotaContract, typeof QUOTA_LIST_FIELDS> = {
  id: { type: 'integer', value: (contract) => contract.id },
  name: { type: 'string', value: (contract) => contract.data.name },
  description: { type: 'string', value: (contract) => contract.data.description },
  tags: { type: 'string-list', value: (contract) => contract.data.tags },
  overage_allowed: { type: 'boolean', value: (contract) => contract.data.overage_allowed },
  created_date: { type: 'datetime', value: (contract) => contract.created_date },
  last_modified_date: { type: 'datetime', value: (contract) => contract.last_modified_date },
};

export const handler = httpHandler(quotaRoutes.list, async ({ query, principal }) => {
  const page = applyListQuery(await quotaContractStore.list(principal.tenantId), query, FIELDS);
  return { body: { ...page, items: page.items.map(quotaResponse) } };
});
