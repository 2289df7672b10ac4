/**
 * The Athena branch of a job's state machine, derived from its declaration: a job whose worker
 * declares `athenaQueries` (WorkerSpec) gets, after its work step, an `AwaitsQuery` Choice and a
 * `RunQuery` Task, `athena:startQueryExecution.sync`, so that no worker waits for a query
 * (docs/decisions.md, "Athena queries wait in Step Functions"). The work step may end with a
 * handoff (shared/engine/athena/handoff.ts) under its output's ATHENA_HANDOFF_KEY: the Choice
 * sends it to RunQuery, which runs the query in the handoff's workgroup and, when it ends
 * (succeeded, failed, cancelled by its cutoff or timed out), calls the work step again with the
 * outcome in `$.sync`; the worker finishes the node and goes on. Without a handoff the Choice
 * goes where the work step went. Step Functions stops the query when the execution stops or the
 * state times out. The query runs with the tenant's role the handoff names (`Credentials`), which
 * the machine's role may assume and nothing else of Athena (infra/stacks/athena-access.ts); the
 * twin answers the resource with its Athena stand-in (infra/local/athena-sync.ts).
 */
import { ATHENA_HANDOFF_KEY, ATHENA_QUERY_TIMEOUT_SECONDS } from '../shared/engine/athena/handoff';
import { SYNC_OUTCOME_KEY, workerPlaceholder, type WorkerSpec } from '../shared/jobs/define-job';

export const ATHENA_START_QUERY_SYNC = 'arn:aws:states:::athena:startQueryExecution.sync';

type State = Record<string, unknown> & { Type?: string; Parameters?: Record<string, unknown>; Next?: string };
interface Definition {
  StartAt: string;
  States: Record<string, State>;
}

/** Athena's errors of the calls Step Functions makes that a new attempt may pass. */
const ATHENA_TRANSIENT_ERRORS = ['Athena.TooManyRequestsException', 'Athena.InternalServerException'];

/**
 * The definition with the Athena branch when `worker` declares `athenaQueries`, as it was
 * otherwise. The worker's step must be the machine's first, with a ResultPath its handoff is read under.
 */
export function withAthenaQueries(definition: string, worker: WorkerSpec): string {
  if (!worker.athenaQueries) return definition;
  const parsed = JSON.parse(definition) as Definition;
  const workState = parsed.StartAt;
  const work = parsed.States[workState];
  const functionArn = `\${${workerPlaceholder(worker)}}`;
  if (work?.Type !== 'Task' || work.Parameters?.FunctionName !== functionArn || typeof work.ResultPath !== 'string')
    throw new Error(
      `worker ${worker.name} hands queries to its machine, so its machine's first state must invoke it (${functionArn}) with a ResultPath`,
    );
  for (const name of ['AwaitsQuery', 'RunQuery'])
    if (name in parsed.States)
      throw new Error(`state ${name} is derived for a worker with athenaQueries; rename the machine's own`);
  if (work.Next === undefined) throw new Error(`the work step of worker ${worker.name} must have a Next`);
  const handoff = `${work.ResultPath}.output.${ATHENA_HANDOFF_KEY}`;
  const outcome = `$.${SYNC_OUTCOME_KEY}`;
  const States: Record<string, State> = {
    ...parsed.States,
    [workState]: { ...work, Next: 'AwaitsQuery' },
    AwaitsQuery: {
      Type: 'Choice',
      Comment: 'The work step handed over a query (a trino-sql node): Athena runs it, no worker waits.',
      Choices: [{ Variable: handoff, IsPresent: true, Next: 'RunQuery' }],
      Default: work.Next,
    },
    RunQuery: {
      Type: 'Task',
      Comment: `the handed query in its tenant's workgroup; Step Functions waits for it and stops it (StopQueryExecution) when the execution stops or the state times out; then the work step again, with the outcome in ${outcome}.`,
      Resource: ATHENA_START_QUERY_SYNC,
      // The tenant's role (shared/engine/athena/tenant-role.ts): the machine's own may only assume it.
      Credentials: { 'RoleArn.$': `${handoff}.role_arn` },
      Parameters: {
        'QueryString.$': `${handoff}.query_string`,
        'WorkGroup.$': `${handoff}.workgroup`,
        QueryExecutionContext: { Catalog: 'AwsDataCatalog', 'Database.$': `${handoff}.database` },
      },
      // The query's text stays out of the state: it is in the handoff already.
      ResultSelector: {
        QueryExecution: {
          'QueryExecutionId.$': '$.QueryExecution.QueryExecutionId',
          'Status.$': '$.QueryExecution.Status',
          'Statistics.$': '$.QueryExecution.Statistics',
        },
      },
      ResultPath: outcome,
      TimeoutSeconds: ATHENA_QUERY_TIMEOUT_SECONDS,
      Retry: [
        {
          ErrorEquals: ATHENA_TRANSIENT_ERRORS,
          IntervalSeconds: 2,
          MaxAttempts: 4,
          BackoffRate: 2,
          MaxDelaySeconds: 30,
          JitterStrategy: 'FULL',
        },
      ],
      // A failed, cancelled or timed-out query goes back to the worker, which maps it to its catalogue code and cleans up.
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: outcome, Next: workState }],
      Next: workState,
    },
  };
  return JSON.stringify({ ...parsed, States }, null, 2);
}
