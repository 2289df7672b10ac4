import { EntityStore, type Entity } from '../db/entity-store';
import { AppError } from '../errors/app-error';
import { RecipeItemData, RecipeMirrors, type RecipeData } from './items';

export type { RecipeData } from './items';

/** A recipe as read: its data and the copy of its latest version. */
export type RecipeEntity = Entity<RecipeData, RecipeMirrors>;

export const recipeStore = new EntityStore<RecipeData, never, RecipeMirrors>({
  kind: 'RECIPE',
  label: 'recipe',
  data: RecipeItemData,
  mirrors: RecipeMirrors,
  references: {},
  // The catalogue names a recipe's own code (spec 7.4), used instead of 10-404.
  notFound: (id) => new AppError('20-1044', { params: [id] }),
});
