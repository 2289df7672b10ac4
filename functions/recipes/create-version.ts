import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { httpHandler } from '../../shared/http/handler';
import { recipeVersionResponse } from '../../shared/recipes/response';
import { checkedContent } from '../../shared/recipes/content';
import { recipeStore } from '../../shared/recipes/store';
import { recipeVersions } from '../../shared/recipes/versions';
import { recipeRoutes } from './routes';

export const handler = httpHandler(recipeRoutes.createVersion, async ({ params, body, principal }) => {
  const { tenantId } = principal;
  const recipe = await recipeStore.get(tenantId, params.recipe_id);
  const aliases = body.aliases ?? recipe.mirrors.latest_version?.aliases ?? [];
  const content = await checkedContent(body.code, aliases, recipe.data.language);
  const version = await recipeVersions.create(tenantId, actorOf(principal), recipe.id, content);
  return {
    status: 201,
    body: recipeVersionResponse(version),
    headers: { location: `${API_BASE_PATH}/recipes/${recipe.id}/versions/${version.version_number}` },
  };
});
