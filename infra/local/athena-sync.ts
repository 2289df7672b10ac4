/**
 * The twin's Step Functions side of `arn:aws:states:::athena:startQueryExecution.sync`
 * (infra/athena-branch.ts), as Step Functions does it against Athena: StartQueryExecution with
 * the state's Parameters (PascalCase in ASL and on the wire alike), then GetQueryExecution until
 * the query is SUCCEEDED, FAILED or CANCELLED. The state succeeds with the GetQueryExecution
 * answer when the query succeeded, and fails with States.TaskFailed, that answer as its Cause,
 * otherwise. Stopping the execution, or the state's TimeoutSeconds, stops the query
 * (StopQueryExecution). All of it over the AWS JSON protocol of the local Athena (athena.ts).
 */
import { jsonProtocolCall, type JsonProtocolService, type JsonValue } from './json-protocol';

/** How often the state looks at its query: Step Functions polls Athena too. */
const POLL_MS = 200;
const FINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

type Json = JsonValue;

const SERVICE: JsonProtocolService = {
  targetPrefix: 'AmazonAthena',
  errorPrefix: 'Athena',
  defaultErrorType: 'AmazonAthenaException',
};
const athenaCall = (endpoint: string, operation: string, input: Json) =>
  jsonProtocolCall(endpoint, SERVICE, operation, input);

/** The queries each execution (by name) is waiting for: stopping the execution stops them. */
const running = new Map<string, Set<string>>();
/** Executions stopped: a query one of them was still starting is stopped as soon as it has an id. */
const stopped = new Set<string>();

/** Stops a query; one already ended or gone has nothing to stop. */
async function stopQuery(endpoint: string, id: string): Promise<void> {
  await athenaCall(endpoint, 'StopQueryExecution', { QueryExecutionId: id }).catch(() => undefined);
}

/** Stops every query an execution's `.sync` states are waiting for. */
export async function stopQueriesOf(endpoint: string, execution: string): Promise<void> {
  const ids = [...(running.get(execution) ?? [])];
  running.delete(execution);
  stopped.add(execution);
  await Promise.all(ids.map((id) => stopQuery(endpoint, id)));
}

export interface StartQuerySyncOptions {
  /** The execution's name: stopping it stops the query (stopQueriesOf). */
  readonly execution: string;
  /** The state's TimeoutSeconds: past it, the query is stopped and the state fails with States.Timeout. */
  readonly timeoutSeconds?: number;
}

/** One `athena:startQueryExecution.sync` state: its Parameters in, the query's GetQueryExecution answer out. */
export async function startQueryExecutionSync(
  endpoint: string,
  parameters: Json,
  options: StartQuerySyncOptions,
): Promise<Json> {
  const { QueryExecutionId } = await athenaCall(endpoint, 'StartQueryExecution', parameters);
  const id = String(QueryExecutionId);
  const mine = running.get(options.execution) ?? new Set<string>();
  running.set(options.execution, mine.add(id));
  if (stopped.has(options.execution)) await stopQuery(endpoint, id);
  const deadline = options.timeoutSeconds === undefined ? Infinity : Date.now() + options.timeoutSeconds * 1000;
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (Date.now() > deadline) {
        await stopQuery(endpoint, id);
        throw Object.assign(new Error('The state timed out'), { name: 'States.Timeout' });
      }
      const answer = await athenaCall(endpoint, 'GetQueryExecution', { QueryExecutionId: id });
      const state = (answer.QueryExecution as { Status?: { State?: string } } | null)?.Status?.State;
      if (state === undefined || !FINAL.has(state)) continue;
      if (state === 'SUCCEEDED') return answer;
      throw Object.assign(new Error(JSON.stringify(answer)), { name: 'States.TaskFailed' });
    }
  } finally {
    mine.delete(id);
    if (mine.size === 0 && running.get(options.execution) === mine) running.delete(options.execution);
  }
}
