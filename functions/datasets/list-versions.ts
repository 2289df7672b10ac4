import type { StoredGraph } from '../../shared/datasets/items';
import { graphs } from '../../shared/datasets/graphs';
import { leanGraph } from '../../shared/datasets/response';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { DATASET_VERSION_LIST_FIELDS } from '../../shared/model/list-fields';
import { graphExpiration } from '../../shared/retention-policy/expiry';
import { activeRule } from '../../shared/retention-policy/policy';
import { datasetRoutes } from './routes';

/** What a list of graph versions can be filtered and sorted by (docs/list-query.md); version_display_name is opaque. */
const FIELDS: ListFields<Listed, typeof DATASET_VERSION_LIST_FIELDS> = {
  version_number: { type: 'integer', value: ({ graph }) => graph.version_number },
  release_status: { type: 'boolean', value: ({ graph }) => graph.release_status },
  created_date: { type: 'datetime', value: ({ graph }) => graph.created_date },
  last_modified_date: { type: 'datetime', value: ({ graph }) => graph.last_modified_date },
};

/** A version as the list sorts it: its number is its id. */
interface Listed {
  readonly id: number;
  readonly graph: StoredGraph;
}

export const handler = httpHandler(datasetRoutes.listVersions, async ({ params, query, principal }) => {
  const all = await graphs.list(principal.tenantId, params.dataset_id);
  const page = applyListQuery(
    all.map((graph) => ({ id: graph.version_number, graph })),
    query,
    FIELDS,
  );
  const rule = await activeRule(principal.tenantId);
  const latest = all.at(-1)?.version_number;
  const shown = ({ graph }: Listed) => leanGraph(graph, graphExpiration(graph, rule, latest));
  return { body: { ...page, items: page.items.map(shown) } };
});
