import { runningNodeAmong } from '../../shared/datasets/run-lock';
import { actorOf } from '../../shared/db/actor';
import { validationError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { recipeVersionResponse } from '../../shared/recipes/response';
import { checkedContent } from '../../shared/recipes/content';
import { recipeStore } from '../../shared/recipes/store';
import { assertSameRecipe } from '../../shared/recipes/update';
import { recipeVersions } from '../../shared/recipes/versions';
import { recipeRoutes } from './routes';

export const handler = httpHandler(recipeRoutes.updateVersion, async ({ params, body, principal }) => {
  assertSameRecipe(params.recipe_id, body.recipe_id);
  if (body.version_number !== undefined && body.version_number !== params.version_number) {
    throw validationError({ version_number: 'must be the version number of the path' });
  }
  // The recipe's language says which analyzer checks the code.
  const [recipe, current] = await Promise.all([
    recipeStore.get(principal.tenantId, params.recipe_id),
    recipeVersions.get(principal.tenantId, params.recipe_id, params.version_number),
  ]);
  const updated = await recipeVersions.update(
    principal.tenantId,
    actorOf(principal),
    current,
    body.lock_version,
    () => checkedContent(body.code, body.aliases ?? current.aliases, recipe.data.language),
    (uses) => runningNodeAmong(principal.tenantId, uses),
  );
  return { body: recipeVersionResponse(updated) };
});
