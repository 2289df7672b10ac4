import type { Entity } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import { defineEntity, ENTITY_LIST_FIELDS, listField } from '../http/define-entity';
import { RecipeUpdateRequest } from '../model/recipe';
import type { RecipeData, RecipeMirrors } from './items';
import { recipeResponse } from './response';
import { RECIPE_STORE, recipeStore } from './store';
import { replacedData } from './update';

type Recipe = Entity<RecipeData, RecipeMirrors>;

/**
 * The recipe entity, declared once on its store (store.ts): its own fields; its versions are
 * children with routes of their own, and the copy of the latest one on its item shows with it
 * (one Query lists them). 20-1011 when the body names another recipe, 20-1044 when it is
 * missing (the store's), 20-1010 for another language (replacedData).
 */
export const recipes = defineEntity(
  {
    ...RECIPE_STORE,
    response: recipeResponse,
    // The usual fields, but the latest version's number after the tags: the order the OpenAPI document names them in.
    list: {
      id: ENTITY_LIST_FIELDS.id,
      name: ENTITY_LIST_FIELDS.name,
      description: ENTITY_LIST_FIELDS.description,
      language: listField.text((entity: Recipe) => entity.data.language),
      shared: listField.boolean((entity: Recipe) => entity.data.shared),
      tags: ENTITY_LIST_FIELDS.tags,
      latest_version_number: listField.integer((entity: Recipe) => entity.mirrors.latest_version?.version_number),
      created_date: ENTITY_LIST_FIELDS.created_date,
      last_modified_date: ENTITY_LIST_FIELDS.last_modified_date,
    },
    update: {
      document: RecipeUpdateRequest,
      idMismatch: () => new AppError('20-1011'),
      next: (_caller, current, document) => ({ data: replacedData(document, current) }),
    },
  },
  recipeStore,
);
