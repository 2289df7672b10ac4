import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import { httpHandler } from '../../shared/http/handler';
import type { RECIPE_VERSION_LIST_FIELDS } from '../../shared/model/recipe';
import type { StoredRecipeVersion } from '../../shared/recipes/items';
import { recipesPage, recipeVersionResponse } from '../../shared/recipes/response';
import { recipeStore } from '../../shared/recipes/store';
import { recipeVersions } from '../../shared/recipes/versions';
import { recipeRoutes } from './routes';

/** Versions keyed by their number, which is their id within the recipe. */
interface Listed {
  readonly id: number;
  readonly version: StoredRecipeVersion;
}

const FIELDS: ListFields<Listed, typeof RECIPE_VERSION_LIST_FIELDS> = {
  version_number: { type: 'integer', value: ({ version }) => version.version_number },
  is_locked: { type: 'boolean', value: ({ version }) => version.is_locked },
  created_date: { type: 'datetime', value: ({ version }) => version.created_date },
  last_modified_date: { type: 'datetime', value: ({ version }) => version.last_modified_date },
};

export const handler = httpHandler(recipeRoutes.listVersions, async ({ params, query, principal }) => {
  await recipeStore.get(principal.tenantId, params.recipe_id);
  const versions = await recipeVersions.list(principal.tenantId, params.recipe_id);
  const page = applyListQuery(
    versions.map((version) => ({ id: version.version_number, version })),
    query,
    FIELDS,
  );
  return { body: recipesPage(page, query, ({ version }) => recipeVersionResponse(version)) };
});
