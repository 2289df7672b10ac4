/** The Task states of an ASL definition, as the twin's Step Functions finds them to wire their handlers. */

/** The parts of an ASL state the twin reads. */
export type StateDefinition = {
  Type?: string;
  Resource?: string;
  Parameters?: { FunctionName?: string };
  Retry?: unknown[];
  TimeoutSeconds?: number;
  States?: Record<string, StateDefinition>;
} & {
  Iterator?: { States?: Record<string, StateDefinition> };
  ItemProcessor?: { States?: Record<string, StateDefinition> };
  Branches?: { States?: Record<string, StateDefinition> }[];
};

/** Task states by name, through Map and Parallel states. */
export function taskStates(
  states: Record<string, StateDefinition> | undefined,
  found: Map<string, StateDefinition> = new Map(),
): Map<string, StateDefinition> {
  for (const [name, state] of Object.entries(states ?? {})) {
    if (state.Type === 'Task') found.set(name, state);
    taskStates(state.Iterator?.States, found);
    taskStates(state.ItemProcessor?.States, found);
    for (const branch of state.Branches ?? []) taskStates(branch.States, found);
  }
  return found;
}
