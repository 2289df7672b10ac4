import { httpHandler } from '../../shared/http/handler';
import { recipeResponse } from '../../shared/recipes/response';
import { recipeStore } from '../../shared/recipes/store';
import { recipeRoutes } from './routes';

export const handler = httpHandler(recipeRoutes.get, async ({ params, principal }) => ({
  body: recipeResponse(await recipeStore.get(principal.tenantId, params.recipe_id)),
}));
