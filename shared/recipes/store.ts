import type { Entity } from '../db/entity-store';
import { defineEntity, ENTITY_LIST_FIELDS, listField } from '../http/define-entity';
import { AppError } from '../errors/app-error';
import { RecipeItemData, RecipeMirrors, type RecipeData } from './items';

export type { RecipeData } from './items';

/** A recipe as read: its data and the copy of its latest version. */
export type RecipeEntity = Entity<RecipeData, RecipeMirrors>;

/**
 * Recipes as stored and listed, the light part of their declaration; entity.ts completes it
 * with their response and update (DeclaredEntity.with).
 */
export const storedRecipes = defineEntity({
  kind: 'RECIPE',
  label: 'recipe',
  data: RecipeItemData,
  mirrors: RecipeMirrors,
  references: {},
  // The catalogue names a recipe's own code (spec 7.4), used instead of 10-404.
  notFound: (id) => new AppError('20-1044', { params: [id] }),
  // The usual fields, but the latest version's number after the tags: the order the OpenAPI document names them in.
  list: {
    id: ENTITY_LIST_FIELDS.id,
    name: ENTITY_LIST_FIELDS.name,
    description: ENTITY_LIST_FIELDS.description,
    language: listField.text((entity: RecipeEntity) => entity.data.language),
    shared: listField.boolean((entity: RecipeEntity) => entity.data.shared),
    tags: ENTITY_LIST_FIELDS.tags,
    latest_version_number: listField.integer((entity: RecipeEntity) => entity.mirrors.latest_version?.version_number),
    created_date: ENTITY_LIST_FIELDS.created_date,
    last_modified_date: ENTITY_LIST_FIELDS.last_modified_date,
  },
});

export const recipeStore = storedRecipes.store;
