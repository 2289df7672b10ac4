import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { TENANT_LIST_FIELDS } from '../../shared/model/list-fields';
import { listTenants, type TenantRecord } from '../../shared/tenants/store';
import { tenantRoutes } from './tenant-routes';

/** A tenant in the registry's order (by tenant id): its position is the id ListQuery breaks ties with. */
interface Listed {
  readonly id: number;
  readonly tenant: TenantRecord;
}

/** What a tenant list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Listed, typeof TENANT_LIST_FIELDS> = {
  tenant_id: { type: 'string', value: ({ tenant }) => tenant.tenant_id },
  name: { type: 'string', value: ({ tenant }) => tenant.name },
  description: { type: 'string', value: ({ tenant }) => tenant.description },
  created_by: { type: 'string', value: ({ tenant }) => tenant.created_by },
  created_date: { type: 'datetime', value: ({ tenant }) => tenant.created_date },
};

export const handler = httpHandler(tenantRoutes.listTenants, async ({ query }) => {
  // A malformed filter or sort is refused before the registry is read: compiling them over no records checks them.
  applyListQuery([], query, FIELDS);
  const tenants = await listTenants();
  const page = applyListQuery(
    tenants.map((tenant, index) => ({ id: index + 1, tenant })),
    query,
    FIELDS,
  );
  return { body: { ...page, items: page.items.map(({ tenant }) => tenant) } };
});
