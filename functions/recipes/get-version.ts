import { httpHandler } from '../../shared/http/handler';
import { recipeVersionResponse } from '../../shared/recipes/response';
import { recipeVersions } from '../../shared/recipes/versions';
import { recipeRoutes } from './routes';

export const handler = httpHandler(recipeRoutes.getVersion, async ({ params, principal }) => ({
  body: recipeVersionResponse(await recipeVersions.get(principal.tenantId, params.recipe_id, params.version_number)),
}));
