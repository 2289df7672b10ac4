/**
 * The list, get, update and merge handlers of the declared recipe entity (shared/recipes/entity.ts),
 * one export each ('recipes/entity#list', shared/http/handler-ref.ts).
 */
import { getHandler, listHandler, mergeHandler, updateHandler } from '../../shared/http/entity-handlers';
import type { ListQuery } from '../../shared/http/list-query';
import { recipes } from '../../shared/recipes/entity';
import { recipesPage } from '../../shared/recipes/response';
import { recipeRoutes } from './routes';

/** A page of recipes in the recipes list envelope (total_count, page_size, page_number; spec 2.2). */
const recipePages = {
  page: async (tenantId: string, query: ListQuery) =>
    recipesPage(await recipes.page(tenantId, query), query, (recipe) => recipe),
};

export const list = listHandler(recipeRoutes.list, recipePages);
export const get = getHandler(recipeRoutes.get, recipes);
export const update = updateHandler(recipeRoutes.update, recipes);
export const merge = mergeHandler(recipeRoutes.merge, recipes);
