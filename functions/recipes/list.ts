import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import { httpHandler } from '../../shared/http/handler';
import type { RECIPE_LIST_FIELDS } from '../../shared/model/recipe';
import { recipeResponse, recipesPage } from '../../shared/recipes/response';
import { recipeStore, type RecipeEntity } from '../../shared/recipes/store';
import { recipeRoutes } from './routes';

/** What a recipe list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<RecipeEntity, typeof RECIPE_LIST_FIELDS> = {
  id: { type: 'integer', value: (entity) => entity.id },
  name: { type: 'string', value: (entity) => entity.data.name },
  description: { type: 'string', value: (entity) => entity.data.description },
  language: { type: 'string', value: (entity) => entity.data.language },
  shared: { type: 'boolean', value: (entity) => entity.data.shared },
  tags: { type: 'string-list', value: (entity) => entity.data.tags },
  latest_version_number: { type: 'integer', value: (entity) => entity.mirrors.latest_version?.version_number },
  created_date: { type: 'datetime', value: (entity) => entity.created_date },
  last_modified_date: { type: 'datetime', value: (entity) => entity.last_modified_date },
};

/** One Query: each recipe's item carries its latest version. */
export const handler = httpHandler(recipeRoutes.list, async ({ query, principal }) => ({
  body: recipesPage(applyListQuery(await recipeStore.list(principal.tenantId), query, FIELDS), query, recipeResponse),
}));
