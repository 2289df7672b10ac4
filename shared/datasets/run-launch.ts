import { launchOffTasks } from '../jobs/task-reach';
import type { LaunchMode } from '../model/job';
import type { RecipeLanguage } from '../model/recipe';
import { recipeStore } from '../recipes/store';
import type { StoredNode } from './items';
import type { BuildStep } from './jobs';

/**
 * Where a recipe run may run (docs/scale.md, section 2; docs/decisions.md, "Trino builds never
 * run on a Fargate task"). A trino-sql node's query waits in the state machine's
 * `athena:startQueryExecution.sync` state, which only a worker on Lambda hands it to
 * (infra/athena-branch.ts): a task's output is no handoff the machine reads, and the engine
 * VPC's tasks reach neither IAM nor STS, where the tenant's role is made and assumed. So a run
 * whose build holds a trino-sql node stays on Lambda whatever its inputs weigh, and forcing it
 * onto a task is refused before the run is queued.
 */

/**
 * The language of each recipe of the graph's nodes, by recipe id, read together (a recipe's
 * language is fixed at its creation); none read when the run is on Lambda anyway. A recipe gone
 * is left out: its node's build fails on it (20-1044) wherever it runs.
 */
export async function recipeLanguages(
  tenantId: string,
  nodes: readonly StoredNode[],
  mode: LaunchMode,
): Promise<ReadonlyMap<number, RecipeLanguage>> {
  if (mode === 'lambda') return new Map();
  const ids = new Set(nodes.flatMap((node) => (node.node_type === 'RECIPE' ? [node.recipe_id] : [])));
  const recipes = await Promise.all([...ids].map((id) => recipeStore.find(tenantId, id)));
  return new Map(recipes.flatMap((recipe) => (recipe ? [[recipe.id, recipe.data.language] as const] : [])));
}

/**
 * The launch mode of a run that builds `build`: as asked, unless a step runs a trino-sql recipe;
 * then `auto` stays on Lambda and a forced `fargate` is 10-1400 naming `launch` and the node.
 */
export function runLaunch(
  mode: LaunchMode,
  build: readonly BuildStep[],
  languages: ReadonlyMap<number, RecipeLanguage>,
): LaunchMode {
  const trino = build.find((step) => languages.get(step.inputs.recipe_id) === 'trino-sql');
  return launchOffTasks(
    mode,
    trino &&
      `the run builds node ${trino.node_id}, a trino-sql recipe, whose Athena query only a run on Lambda hands to the state machine to wait for`,
  );
}
