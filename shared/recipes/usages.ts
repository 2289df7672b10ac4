import { ItemType } from '../db/item-type';
import { keys } from '../db/keys';
import { StoredRecipeUsage } from './items';

/**
 * Where recipe versions are used: dataset nodes record each use beside the version
 * (keys.versionUse, written by datasets), so the uses of one version are one Query over its
 * recipe's item collection, in dataset, graph version and node order.
 */
export const recipeUsageItems = new ItemType('RECIPE_VERSION_USAGE', StoredRecipeUsage);

export const recipeUsages = {
  list(tenantId: string, recipeId: number, versionNumber: number): Promise<StoredRecipeUsage[]> {
    return recipeUsageItems.query(keys.children(tenantId, 'RECIPE', recipeId), keys.versionUsePrefix(versionNumber));
  },
};
