import { auditFieldsOf } from '../db/entity-store';
import type { ListPage, ListQuery } from '../http/list-query';
import type { RecipeResponse, RecipeVersionResponse, RecipeVersionUsage } from '../model/recipe';
import type { StoredRecipeUsage, StoredRecipeVersion } from './items';
import type { RecipeEntity } from './store';

export function recipeVersionResponse(version: StoredRecipeVersion): RecipeVersionResponse {
  return {
    recipe_id: version.recipe_id,
    version_number: version.version_number,
    code: version.code,
    aliases: [...version.aliases],
    is_locked: version.is_locked,
    lock_version: version.lock_version,
    created_by: version.created_by,
    created_date: version.created_date,
    last_modified_by: version.last_modified_by,
    last_modified_date: version.last_modified_date,
  };
}

/** A recipe with its latest version, from the recipe's own item (its copy of that version). */
export function recipeResponse(entity: RecipeEntity): RecipeResponse {
  const { data } = entity;
  const latest = entity.mirrors.latest_version;
  // The copy is written with the recipe; its schema requires it, so only a bug reaches here.
  if (!latest) throw new Error(`recipe ${entity.id} has no latest version`);
  return {
    id: entity.id,
    lock_version: entity.lock_version,
    name: data.name,
    description: data.description,
    tags: data.tags ? [...data.tags] : null,
    shared: data.shared,
    language: data.language,
    latest_version: recipeVersionResponse(latest),
    ...auditFieldsOf(entity),
  };
}

export function recipeUsageResponse(usage: StoredRecipeUsage): RecipeVersionUsage {
  const { recipe_id: _recipe, recipe_version_number: _version, ...response } = usage;
  return response;
}

/**
 * The recipes list envelope (spec 2.2) of a page chosen by ListQuery: page_size is the limit
 * asked for and page_number the zero-based page the offset falls on (docs/list-query.md).
 */
export function recipesPage<T, R>(page: ListPage<T>, query: ListQuery, toResponse: (record: T) => R) {
  return {
    items: page.items.map(toResponse),
    total_count: page.total,
    page_size: query.limit,
    page_number: Math.floor(query.offset / query.limit),
  };
}
