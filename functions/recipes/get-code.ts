import { httpHandler } from '../../shared/http/handler';
import { recipeVersions } from '../../shared/recipes/versions';
import { recipeRoutes } from './routes';

export const handler = httpHandler(recipeRoutes.getCode, async ({ params, principal }) => ({
  body: { code: (await recipeVersions.get(principal.tenantId, params.recipe_id, params.version_number)).code },
}));
