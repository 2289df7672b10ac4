/**
 * The twin's GetExecutionHistory (infra/local/stepfunctions.ts): the events of an execution of
 * aws-local-stepfunctions in Step Functions' shape, so a test can see which states ran and
 * which resources they called.
 */
import type { StateMachine } from 'aws-local-stepfunctions';

type EventLogs = ReturnType<StateMachine['run']>['eventLogs'];

/** An event of GetExecutionHistory, in Step Functions' shape: the states entered and left, the tasks scheduled. */
export type HistoryEvent = { id: number; timestamp: number; type: string } & Record<string, unknown>;

/**
 * The run's events as GetExecutionHistory lists them (the top-level states; Map and Parallel
 * iterations are not listed): `<Type>StateEntered` / `<Type>StateExited` with the state's name,
 * `TaskScheduled` with the resource a Task state calls (`athena`, `startQueryExecution.sync`),
 * `TaskFailed` with its error, and the execution's own start and end.
 */
export async function historyEvents(logs: EventLogs, resources: ReadonlyMap<string, string>, into: HistoryEvent[]) {
  const add = (timestamp: number, type: string, details: Record<string, unknown> = {}) =>
    into.push({ id: into.length + 1, timestamp: timestamp / 1000, type, ...details });
  for await (const event of logs) {
    const state = 'state' in event && !('index' in event && event.index !== undefined) ? event.state : undefined;
    switch (event.type) {
      case 'ExecutionStarted':
      case 'ExecutionSucceeded':
      case 'ExecutionFailed':
        add(event.timestamp, event.type);
        break;
      case 'ExecutionAborted':
        add(event.timestamp, 'ExecutionAborted');
        break;
      case 'ExecutionTimeout':
        add(event.timestamp, 'ExecutionTimedOut');
        break;
      case 'StateEntered': {
        if (!state) break;
        add(event.timestamp, `${state.type}StateEntered`, { stateEnteredEventDetails: { name: state.name } });
        const resource = resources.get(state.name);
        // arn:aws:states:::athena:startQueryExecution.sync → athena, startQueryExecution.sync
        const [, resourceType, call] = /^arn:aws:states:::([^:]+):(.+)$/.exec(resource ?? '') ?? [];
        if (state.type === 'Task' && resourceType !== undefined)
          add(event.timestamp, 'TaskScheduled', { taskScheduledEventDetails: { resourceType, resource: call } });
        break;
      }
      case 'StateExited':
        if (state) add(event.timestamp, `${state.type}StateExited`, { stateExitedEventDetails: { name: state.name } });
        break;
      case 'StateFailed':
        if (state?.type === 'Task')
          add(event.timestamp, 'TaskFailed', { taskFailedEventDetails: { error: event.Error } });
        break;
      default:
        break;
    }
  }
}
