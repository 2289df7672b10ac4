import { checkQualityRules } from '../quality-check';
import { bindRecipeOutput } from '../recipe-sql-bind';
import { runRecipeTask } from '../recipe-run';

/**
 * What an engine process can be asked to do: the work that runs user SQL, and so may need
 * more memory or time than it is allowed (engine-process.ts). Each task takes its input and
 * an `emit` for the events it tells its parent while it runs.
 */
export const ENGINE_TASKS = {
  /** The output columns of a recipe's code bound over empty tables (the analyzer). */
  describe: bindRecipeOutput,
  /** A recipe run over its node's inputs. */
  'recipe-run': runRecipeTask,
  /** The data-quality rules of a table over a version just imported. */
  'quality-check': checkQualityRules,
} as const;

export type EngineTaskName = keyof typeof ENGINE_TASKS;
type Task<K extends EngineTaskName> = (typeof ENGINE_TASKS)[K];
export type TaskInput<K extends EngineTaskName> = Parameters<Task<K>>[0];
export type TaskOutput<K extends EngineTaskName> = Awaited<ReturnType<Task<K>>>;
export type TaskEvent<K extends EngineTaskName> = Parameters<Parameters<Task<K>>[1]>[0];

export function isEngineTask(name: string): name is EngineTaskName {
  return Object.hasOwn(ENGINE_TASKS, name);
}
