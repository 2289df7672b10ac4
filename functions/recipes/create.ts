import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { recipeResponse } from '../../shared/recipes/response';
import { checkedContent, requireLanguage } from '../../shared/recipes/content';
import { recipeStore } from '../../shared/recipes/store';
import { recipeData } from '../../shared/recipes/update';
import { newVersion, recipeVersions } from '../../shared/recipes/versions';
import { recipeRoutes } from './routes';

export const handler = httpHandler(recipeRoutes.create, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  const actor = actorOf(principal);
  const data = recipeData(body);
  await requireLanguage(tenantId, data.language);
  const content = await checkedContent(body.recipe_version.code, body.aliases, data.language);
  const now = new Date().toISOString();
  // Version 1 is written with the recipe, and the recipe's item starts with its copy.
  const first = (id: number) => newVersion(id, 1, actor, content, now);
  const { entity, replayed } = await recipeStore.create(tenantId, actor, () => data, {
    mirrors: (id) => ({ latest_version: first(id) }),
    related: (id) => recipeVersions.firstWrites(tenantId, first(id)),
    ...(idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, fingerprint: fingerprint(body) } }),
  });
  return {
    status: 201,
    body: recipeResponse(entity),
    headers: {
      location: `${API_BASE_PATH}/recipes/${entity.id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
