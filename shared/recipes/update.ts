import { AppError } from '../errors/app-error';
import type { RecipeCreateRequest } from '../model/recipe';
import type { RecipeData } from './items';
import { recipeLanguage } from './rules';
import type { RecipeEntity } from './store';

/** 20-1011 unless the recipe id in the URL and the one in the body agree. */
export function assertSameRecipe(urlId: number, bodyId: number | undefined): void {
  if (bodyId !== undefined && urlId !== bodyId) throw new AppError('20-1011');
}

/** The stored data of a create or full update: absent optional fields cleared, shared true unless false. */
export function recipeData(
  document: Pick<RecipeCreateRequest, 'name' | 'description' | 'tags' | 'shared' | 'language'>,
): RecipeData {
  return {
    name: document.name,
    description: document.description ?? null,
    tags: document.tags ?? null,
    shared: document.shared ?? true,
    language: recipeLanguage(document.language),
  };
}

/**
 * The stored data of a full update or merge patch: as recipeData, but the language stays the
 * one the recipe was created in (20-1010 otherwise). Every version was checked in it, and runs
 * in its engine; another dialect would read the same code differently.
 */
export function replacedData(
  document: Pick<RecipeCreateRequest, 'name' | 'description' | 'tags' | 'shared' | 'language'>,
  current: RecipeEntity,
): RecipeData {
  const data = recipeData(document);
  if (data.language !== current.data.language)
    throw new AppError('20-1010', {
      extraDetails: {
        language: `is ${current.data.language} for this recipe: a recipe's language is fixed when it is created (create a recipe in ${data.language} instead)`,
      },
    });
  return data;
}
