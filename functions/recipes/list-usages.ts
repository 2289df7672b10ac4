import { withCurrentDatasetNames } from '../../shared/datasets/usages';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import { httpHandler } from '../../shared/http/handler';
import type { RECIPE_USAGE_LIST_FIELDS } from '../../shared/model/recipe';
import type { StoredRecipeUsage } from '../../shared/recipes/items';
import { recipesPage, recipeUsageResponse } from '../../shared/recipes/response';
import { recipeUsages } from '../../shared/recipes/usages';
import { recipeVersions } from '../../shared/recipes/versions';
import { recipeRoutes } from './routes';

/** Uses keyed by their place in key order (dataset, graph version, node), which ties break by. */
interface Listed {
  readonly id: number;
  readonly usage: StoredRecipeUsage;
}

const FIELDS: ListFields<Listed, typeof RECIPE_USAGE_LIST_FIELDS> = {
  dataset_id: { type: 'integer', value: ({ usage }) => usage.dataset_id },
  dataset_name: { type: 'string', value: ({ usage }) => usage.dataset_name },
  version_number: { type: 'integer', value: ({ usage }) => usage.version_number },
  release_status: { type: 'boolean', value: ({ usage }) => usage.release_status },
  node_id: { type: 'integer', value: ({ usage }) => usage.node_id },
  created_date: { type: 'datetime', value: ({ usage }) => usage.created_date },
};

export const handler = httpHandler(recipeRoutes.listUsages, async ({ params, query, principal }) => {
  const { tenantId } = principal;
  // 20-1044 or 20-1045 when the recipe or the version does not exist.
  await recipeVersions.get(tenantId, params.recipe_id, params.version_number);
  const usages = await withCurrentDatasetNames(
    tenantId,
    await recipeUsages.list(tenantId, params.recipe_id, params.version_number),
  );
  const page = applyListQuery(
    usages.map((usage, index) => ({ id: index + 1, usage })),
    query,
    FIELDS,
  );
  return { body: recipesPage(page, query, ({ usage }) => recipeUsageResponse(usage)) };
});
