import { actorOf } from '../../shared/db/actor';
import { httpHandler } from '../../shared/http/handler';
import { recipeResponse } from '../../shared/recipes/response';
import { recipeStore } from '../../shared/recipes/store';
import { assertSameRecipe, mergedDocument, replacedData } from '../../shared/recipes/update';
import { recipeRoutes } from './routes';

export const handler = httpHandler(recipeRoutes.merge, async ({ params, body, principal }) => {
  assertSameRecipe(params.recipe_id, body.id);
  const current = await recipeStore.get(principal.tenantId, params.recipe_id);
  const document = mergedDocument(current, body);
  return {
    body: recipeResponse(
      await recipeStore.replace(
        principal.tenantId,
        actorOf(principal),
        current,
        document.lock_version,
        replacedData(document, current),
      ),
    ),
  };
});
