import { httpHandler } from '../../shared/http/handler';
import { recipeStore } from '../../shared/recipes/store';
import { recipeVersions } from '../../shared/recipes/versions';
import { recipeRoutes } from './routes';

export const handler = httpHandler(recipeRoutes.delete, async ({ params, query, principal }) => {
  const { tenantId } = principal;
  await recipeStore.delete(tenantId, params.recipe_id, { expectedLockVersion: query.lock_version });
  // The recipe is gone for callers (and no version can be created without it); its versions follow.
  await recipeVersions.purge(tenantId, params.recipe_id);
  return { status: 204, body: undefined };
});
