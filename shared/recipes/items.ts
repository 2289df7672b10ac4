import * as z from 'zod';
import { StoredActor } from '../db/items';
import { RECIPE_LANGUAGES } from '../model/recipe';

/**
 * The stored items of recipes (spec 2.7), in the layout of data tables:
 *
 *   recipe   entity item (db/entity-item.ts): `data`, and the mirror `latest_version`
 *   head     { version_count }                        numbers the versions (versions.ts)
 *   version  { recipe_id, version_number, code, aliases, is_locked, lock_version, audit }
 *   usage    a dataset node's use of a version, beside it (usages.ts)
 */

export const RecipeItemData = z.object({
  name: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()).readonly().nullable(),
  shared: z.boolean(),
  language: z.enum(RECIPE_LANGUAGES),
});
export type RecipeData = z.infer<typeof RecipeItemData>;

export const StoredRecipeVersion = z.object({
  recipe_id: z.int(),
  version_number: z.int(),
  /** Checked by the SQL analyzer before it is stored. */
  code: z.string(),
  aliases: z.array(z.string()).readonly(),
  /**
   * trino-sql: the query as the column-lineage tracer reads it, or why not, as JSON text
   * (engine/trino/trino-lineage-tree.ts), made when the version is saved, where the parser runs.
   */
  lineage_tree: z.string().optional(),
  /** Set while released datasets use the version: it cannot be updated (20-1046). */
  is_locked: z.boolean(),
  /** The version's own optimistic lock: updates of its code send it. */
  lock_version: z.int(),
  /**
   * The last recipe run that planned with this version (shared/datasets/run-queue.ts): an
   * update judges the running nodes (20-1048), then commits only if no run started since.
   */
  run_marker: z.string().optional(),
  created_by: StoredActor,
  created_date: z.string(),
  last_modified_by: StoredActor,
  last_modified_date: z.string(),
});
export type StoredRecipeVersion = z.infer<typeof StoredRecipeVersion>;

/** The attribute of the recipe item that holds the copy of its latest version. */
export const LATEST_VERSION = 'latest_version';

/**
 * The copy of the newest version on the recipe's item: every write of that version writes
 * the copy in the same transaction (creation, update, lock), so a recipe and a list of
 * recipes read no version items. A recipe is created with version 1 and versions are never
 * deleted, so the copy is always there, and the newest stays newest until a newer one is
 * created.
 */
export const RecipeMirrors = z.object({ [LATEST_VERSION]: StoredRecipeVersion });
export type RecipeMirrors = z.infer<typeof RecipeMirrors>;

export const RecipeVersionHead = z.object({ version_count: z.int() });
export type RecipeVersionHead = z.infer<typeof RecipeVersionHead>;

/**
 * A dataset node's use of a recipe version, written beside the version by every write of the
 * graph version that holds the node (shared/datasets/usages.ts), with a copy of what the usage
 * response shows of that graph version, so listing the uses of a version is one Query. Only
 * the dataset's name is read when they are listed: a rename does not rewrite the uses
 * (withCurrentDatasetNames).
 */
export const StoredRecipeUsage = z.object({
  recipe_id: z.int(),
  recipe_version_number: z.int(),
  dataset_id: z.int(),
  version_number: z.int(),
  version_display_name: z.string(),
  release_status: z.boolean(),
  lock_version: z.int(),
  expiration_date: z.string().nullable(),
  dataset_name: z.string().nullable(),
  node_id: z.int(),
  created_by: StoredActor,
  created_date: z.string(),
  last_modified_by: StoredActor,
  last_modified_date: z.string(),
});
export type StoredRecipeUsage = z.infer<typeof StoredRecipeUsage>;
