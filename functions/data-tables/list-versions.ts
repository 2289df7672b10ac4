import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { DATA_VERSION_LIST_FIELDS } from '../../shared/model/list-fields';
import { versionResponse } from '../../shared/data-tables/response';
import { dataTableStore } from '../../shared/data-tables/store';
import { dataVersions, type StoredVersion } from '../../shared/data-tables/versions';
import { httpHandler } from '../../shared/http/handler';
import { dataVersionExpiration, newestCompletedOf } from '../../shared/retention-policy/expiry';
import { activeRule } from '../../shared/retention-policy/policy';
import { dataTableRoutes } from './routes';

/** Versions keyed by their number, which is their id within the table. */
interface Listed {
  readonly id: number;
  readonly version: StoredVersion;
}

const FIELDS: ListFields<Listed, typeof DATA_VERSION_LIST_FIELDS> = {
  version_number: { type: 'integer', value: ({ version }) => version.version_number },
  status: { type: 'string', value: ({ version }) => version.execution.status },
  created_date: { type: 'datetime', value: ({ version }) => version.created_date },
};

export const handler = httpHandler(dataTableRoutes.listVersions, async ({ params, query, principal }) => {
  await dataTableStore.get(principal.tenantId, params.data_table_id);
  const versions = await dataVersions.list(principal.tenantId, params.data_table_id);
  const page = applyListQuery(
    versions.map((version) => ({ id: version.version_number, version })),
    query,
    FIELDS,
  );
  const rule = await activeRule(principal.tenantId);
  const kept = newestCompletedOf(versions);
  const shown = ({ version }: Listed) => versionResponse(version, dataVersionExpiration(version, rule, kept));
  return { body: { ...page, items: page.items.map(shown) } };
});
