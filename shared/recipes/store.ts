import { EntityStore, type Entity, type EntityStoreConfig } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import { RecipeItemData, RecipeMirrors, type RecipeData } from './items';

export type { RecipeData } from './items';

/** A recipe as read: its data and the copy of its latest version. */
export type RecipeEntity = Entity<RecipeData, RecipeMirrors>;

/** How recipes are stored; the declared entity (entity.ts) adds its response, list and update on this same store. */
export const RECIPE_STORE: EntityStoreConfig<RecipeData, never, RecipeMirrors> = {
  kind: 'RECIPE',
  label: 'recipe',
  data: RecipeItemData,
  mirrors: RecipeMirrors,
  references: {},
  // The catalogue names a recipe's own code (spec 7.4), used instead of 10-404.
  notFound: (id) => new AppError('20-1044', { params: [id] }),
};

export const recipeStore = new EntityStore(RECIPE_STORE);
