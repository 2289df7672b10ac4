/**
 * The twin's Step Functions side of `arn:aws:states:::athena:startQueryExecution.sync`
 * (infra/athena-branch.ts), as Step Functions does it against Athena: StartQueryExecution with
 * the state's Parameters (PascalCase in ASL and on the wire alike), then GetQueryExecution until
 * the query is SUCCEEDED, FAILED or CANCELLED. The state succeeds with the GetQueryExecution
 * answer when the query succeeded, and fails with States.TaskFailed, that answer as its Cause,
 * otherwise. Stopping the execution, or the state's TimeoutSeconds, stops the query
 * (StopQueryExecution). All of it over the AWS JSON protocol of the local Athena (athena.ts).
 * A state with `Credentials` first assumes that role (the local STS, iam.ts, as the machine's
 * role) and makes every call with its session, as Step Functions does.
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
const athenaCall = (endpoint: string, operation: string, input: Json, accessKeyId?: string) =>
  jsonProtocolCall(endpoint, SERVICE, operation, input, accessKeyId);

/** The key id of a session of `roleArn` from the local STS; a refusal fails the state as States.TaskFailed. */
async function assumeRole(stsEndpoint: string, roleArn: string, execution: string): Promise<string> {
  const response = await fetch(stsEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      Action: 'AssumeRole',
      Version: '2011-06-15',
      RoleArn: roleArn,
      RoleSessionName: execution.slice(0, 64),
    }).toString(),
  });
  const text = await response.text();
  const keyId = /<AccessKeyId>([^<]+)<\/AccessKeyId>/.exec(text)?.[1];
  if (!response.ok || keyId === undefined)
    throw Object.assign(new Error(/<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? text), {
      name: 'States.TaskFailed',
    });
  return keyId;
}

/** The queries each execution (by name) is waiting for: stopping the execution stops them. */
const running = new Map<string, Set<string>>();
/** Executions stopped: a query one of them was still starting is stopped as soon as it has an id. */
const stopped = new Set<string>();

/** The session each running query was started with: it stops the query too. */
const keys = new Map<string, string | undefined>();

/** Stops a query; one already ended or gone has nothing to stop. */
async function stopQuery(endpoint: string, id: string): Promise<void> {
  await athenaCall(endpoint, 'StopQueryExecution', { QueryExecutionId: id }, keys.get(id)).catch(() => undefined);
}

/** Stops every query an execution's `.sync` states are waiting for. */
export async function stopQueriesOf(endpoint: string, execution: string): Promise<void> {
  const ids = [...(running.get(execution) ?? [])];
  running.delete(execution);
  stopped.add(execution);
  await Promise.all(ids.map((id) => stopQuery(endpoint, id)));
}

/** The Parameters member the twin moves a state's `Credentials.RoleArn` into (stepfunctions.ts): its value is the role. */
export const LOCAL_CREDENTIALS_MEMBER = 'LocalCredentialsRoleArn';

export interface StartQuerySyncOptions {
  /** The execution's name: stopping it stops the query (stopQueriesOf). */
  readonly execution: string;
  /** The state's TimeoutSeconds: past it, the query is stopped and the state fails with States.Timeout. */
  readonly timeoutSeconds?: number;
  /** The local STS, where a state with Credentials assumes its role. */
  readonly stsEndpoint?: string;
}

/** One `athena:startQueryExecution.sync` state: its Parameters in, the query's GetQueryExecution answer out. */
export async function startQueryExecutionSync(
  endpoint: string,
  parameters: Json,
  options: StartQuerySyncOptions,
): Promise<Json> {
  const { [LOCAL_CREDENTIALS_MEMBER]: roleArn, ...query } = parameters as Record<string, Json>;
  let accessKeyId: string | undefined;
  if (roleArn !== undefined) {
    if (options.stsEndpoint === undefined) throw new Error('a state with Credentials needs the local STS');
    accessKeyId = await assumeRole(options.stsEndpoint, String(roleArn), options.execution);
  }
  const { QueryExecutionId } = await athenaCall(endpoint, 'StartQueryExecution', query, accessKeyId);
  const id = String(QueryExecutionId);
  keys.set(id, accessKeyId);
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
      const answer = await athenaCall(endpoint, 'GetQueryExecution', { QueryExecutionId: id }, accessKeyId);
      const state = (answer.QueryExecution as { Status?: { State?: string } } | null)?.Status?.State;
      if (state === undefined || !FINAL.has(state)) continue;
      if (state === 'SUCCEEDED') return answer;
      throw Object.assign(new Error(JSON.stringify(answer)), { name: 'States.TaskFailed' });
    }
  } finally {
    keys.delete(id);
    mine.delete(id);
    if (mine.size === 0 && running.get(options.execution) === mine) running.delete(options.execution);
  }
}
