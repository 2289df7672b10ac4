import { AppError } from '../errors/app-error';
import { RecipeUpdateRequest } from '../model/recipe';
import { recipeResponse } from './response';
import { storedRecipes } from './store';
import { replacedData } from './update';

/**
 * The recipe entity, its declaration (store.ts) completed: its own fields; its versions are
 * children with routes of their own, and the copy of the latest one on its item shows with it
 * (one Query lists them). 20-1011 when the body names another recipe, 20-1044 when it is
 * missing (the store's), 20-1010 for another language (replacedData).
 */
export const recipes = storedRecipes.with({
  response: recipeResponse,
  update: {
    document: RecipeUpdateRequest,
    idMismatch: () => new AppError('20-1011'),
    next: (_caller, current, document) => ({ data: replacedData(document, current) }),
  },
});
