/**
 * Local Step Functions: answers StartExecution, DescribeExecution and StopExecution over the
 * AWS JSON protocol, so functions start jobs with the real @aws-sdk/client-sfn, and runs each
 * execution of the very same ASL files CDK deploys with aws-local-stepfunctions. Every Task
 * state's Lambda ARN maps to the worker's handler module; an `ecs:runTask.sync` state runs its
 * task on the local ECS (infra/local/ecs-run-task.ts), and an `athena:startQueryExecution.sync`
 * state its query on the local Athena (infra/local/athena-sync.ts); stopping the execution stops both.
 */
import 'core-js/actual/promise/with-resolvers.js';
import { randomUUID } from 'node:crypto';
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
  type RunOptions,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';

/** What an execution runs on: the machine's first input. */
type RunInput = Parameters<StateMachine['run']>[0];
type TaskHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
import { workerPlaceholder, type WorkerSpec } from '../../shared/jobs/define-job';
import { ATHENA_START_QUERY_SYNC } from '../athena-branch';
import { ECS_RUN_TASK_SYNC } from '../fargate-branch';
import { substitute, type JobMachine } from '../state-machines';
import { localTaskPlaceholders } from './ecs';
import { LOCAL_CREDENTIALS_MEMBER, startQueryExecutionSync, stopQueriesOf } from './athena-sync';
import { runTaskSync, stopTasksStartedBy } from './ecs-run-task';
import { historyEvents, type HistoryEvent } from './execution-history';
import { ExecutionJournal } from './execution-journal';
import { JsonProtocolError, startJsonProtocolServer, type JsonObject, type JsonOperation } from './json-protocol';
import { taskStates, type StateDefinition } from './task-states';

const REGION_ACCOUNT = 'us-east-1:000000000000';
const LAMBDA_INVOKE = 'arn:aws:states:::lambda:invoke';

export type WorkerFunction = (input: unknown, context: { awsRequestId: string }) => Promise<unknown>;

export interface LocalStepFunctionsOptions {
  /** The jobs' state machines (infra/state-machines.ts jobMachines). */
  readonly machines: readonly JobMachine[];
  readonly workers: readonly WorkerSpec[];
  /** How a worker's handler is loaded; from functions/ by default. */
  readonly loadWorker?: (worker: WorkerSpec) => Promise<WorkerFunction>;
  readonly port?: number;
  /** Wait between retries of every state, instead of the definition's backoff (tests). */
  readonly retryIntervalMs?: number;
  /** TimeoutSeconds of every Task that has one, instead of the definition's (tests of timeouts). */
  readonly taskTimeoutSeconds?: number;
  /**
   * File that remembers running executions across process deaths (npm start's data folder).
   * At start, each execution that died with the previous process runs again from its start,
   * once; one that died again is handed to `onAbandoned`.
   */
  readonly journalFile?: string;
  /** Resolves an execution that cannot run again: records its job's failure. */
  readonly onAbandoned?: (input: unknown) => Promise<void>;
  /** The local ECS (infra/local/ecs.ts) that runs the Fargate branch's tasks; required when a machine has one. */
  readonly ecsEndpoint?: string;
  /** The local Athena (infra/local/athena.ts) that runs the Athena branch's queries; required when a machine has one. */
  readonly athenaEndpoint?: string;
  /** The local STS (infra/local/iam.ts), where an Athena state with Credentials assumes its role. */
  readonly stsEndpoint?: string;
}

/** Executions that died with the twin run again from their start this many times. */
const RESTARTS = 1;

export interface LocalStepFunctions {
  readonly endpoint: string;
  /** ARN of each state machine, by name. */
  readonly machines: Readonly<Record<string, string>>;
  /**
   * Resolves the executions that died with the previous process (see journalFile); call it
   * once the functions' environment is ready. Returns how many run again.
   */
  resumeInterrupted(): Promise<number>;
  close(): Promise<void>;
}

interface Execution {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  readonly name: string;
  readonly input: string;
  readonly startDate: number;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';
  stopDate?: number;
  output?: string;
  error?: string;
  cause?: string;
  abort: () => void;
  /** GetExecutionHistory's events, as far as the run has gone (historyEvents). */
  readonly history: HistoryEvent[];
}

/** Loads a worker's handler from functions/, as deployed. */
export const loadWorkerHandler = async (worker: WorkerSpec): Promise<WorkerFunction> => {
  const module = (await import(new URL(`../../functions/${worker.handler}.ts`, import.meta.url).href)) as {
    handler: WorkerFunction;
  };
  return module.handler;
};

/** Step Functions' bound on an execution's input and a state's result, in UTF-8 bytes (256 KiB). */
const MAX_PAYLOAD_BYTES = 262_144;

/** The input of StartExecution as Step Functions takes it: refused as it refuses it when too large or not JSON. */
function executionInput(text: string): RunInput {
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES)
    throw new JsonProtocolError(
      'ValidationException',
      `1 validation error detected: Value at 'input' failed to satisfy constraint: Member must have length less than or equal to ${MAX_PAYLOAD_BYTES}`,
    );
  try {
    return JSON.parse(text) as RunInput;
  } catch {
    throw new JsonProtocolError('InvalidExecutionInput', 'Invalid State Machine Execution Input: not valid JSON');
  }
}

/**
 * The ARN the twin gives each worker, by the placeholder its machines name it with, and those of
 * the Fargate workers' task definitions and their cluster (infra/local/ecs.ts).
 */
export function localWorkerArns(workers: readonly WorkerSpec[]): Record<string, string> {
  return {
    ...Object.fromEntries(
      workers.map((worker) => [workerPlaceholder(worker), `arn:aws:lambda:${REGION_ACCOUNT}:function:${worker.name}`]),
    ),
    ...localTaskPlaceholders(workers),
  };
}

/** A Task state's handler; `execution` is the execution's name (the tasks it starts are stopped with it). */
type StateHandler = (input: unknown, execution: string) => Promise<unknown>;

/**
 * A job's definition as the twin runs it: its placeholders filled with the twin's worker ARNs.
 * test/unit/jobs/state-machines.test.ts validates every job's, which is why the twin itself
 * does not (asl-validator compiles its JSON schemas anew for every definition: about 2.5 s of
 * CPU at every start, paid by every test file and every `npm start`, for definitions that only
 * change with the code).
 */
export function localDefinition(machine: JobMachine, workerArns: Readonly<Record<string, string>>): string {
  return substitute(machine.definition, workerArns);
}

export async function startLocalStepFunctions(options: LocalStepFunctionsOptions): Promise<LocalStepFunctions> {
  const load = options.loadWorker ?? loadWorkerHandler;
  const placeholders = localWorkerArns(options.workers);
  const byArn = new Map<string, WorkerSpec>(
    options.workers.map((worker) => [placeholders[workerPlaceholder(worker)]!, worker]),
  );

  const machines = new Map<
    string,
    {
      machine: StateMachine;
      handlers: Record<string, StateHandler>;
      retryIntervals: Record<string, number>;
      /** Each top-level Task state's Resource, for the history's TaskScheduled events. */
      resources: ReadonlyMap<string, string>;
    }
  >();
  for (const file of options.machines) {
    const definition = JSON.parse(localDefinition(file, placeholders)) as StateMachineDefinition & {
      States: Record<string, StateDefinition>;
    };
    const handlers: Record<string, StateHandler> = {};
    const retryIntervals: Record<string, number> = {};
    const resources = new Map(
      Object.entries(definition.States).flatMap(([name, state]) =>
        state.Type === 'Task' && state.Resource !== undefined ? [[name, state.Resource] as const] : [],
      ),
    );
    for (const [stateName, state] of taskStates(definition.States)) {
      if (options.retryIntervalMs !== undefined && state.Retry) retryIntervals[stateName] = options.retryIntervalMs;
      if (options.taskTimeoutSeconds !== undefined && state.TimeoutSeconds !== undefined)
        state.TimeoutSeconds = options.taskTimeoutSeconds;
      if (state.Resource === ECS_RUN_TASK_SYNC) {
        const { ecsEndpoint } = options;
        if (ecsEndpoint === undefined)
          throw new Error(`state ${stateName} of ${file.name} runs an ECS task: no local ECS`);
        const timeoutSeconds = state.TimeoutSeconds;
        handlers[stateName] = (input, execution) =>
          runTaskSync(ecsEndpoint, input as Parameters<typeof runTaskSync>[1], {
            startedBy: execution,
            timeoutSeconds,
          });
        continue;
      }
      if (state.Resource === ATHENA_START_QUERY_SYNC) {
        const { athenaEndpoint } = options;
        if (athenaEndpoint === undefined)
          throw new Error(`state ${stateName} of ${file.name} runs an Athena query: no local Athena`);
        const timeoutSeconds = state.TimeoutSeconds;
        // The interpreter knows no Credentials field: its role's path goes into the Parameters,
        // which it evaluates, and the handler assumes that role (athena-sync.ts).
        const withCredentials = state as typeof state & { Credentials?: { 'RoleArn.$'?: string; RoleArn?: string } };
        const credentials = withCredentials.Credentials;
        if (credentials !== undefined) {
          state.Parameters = {
            ...state.Parameters,
            ...(credentials['RoleArn.$'] !== undefined
              ? { [`${LOCAL_CREDENTIALS_MEMBER}.$`]: credentials['RoleArn.$'] }
              : { [LOCAL_CREDENTIALS_MEMBER]: credentials.RoleArn }),
          };
          delete withCredentials.Credentials;
        }
        handlers[stateName] = (input, execution) =>
          startQueryExecutionSync(athenaEndpoint, input as Parameters<typeof startQueryExecutionSync>[1], {
            execution,
            timeoutSeconds,
            stsEndpoint: options.stsEndpoint,
          });
        continue;
      }
      const invoke = state.Resource === LAMBDA_INVOKE;
      const worker = byArn.get(invoke ? String(state.Parameters?.FunctionName) : String(state.Resource));
      if (!worker)
        throw new Error(`state ${stateName} of ${file.name} calls ${state.Resource}, which is not a known worker`);
      handlers[stateName] = async (input) => {
        const run = await load(worker);
        const payload = invoke ? (input as { Payload?: unknown }).Payload : input;
        const result = await run(payload, { awsRequestId: randomUUID() });
        if (Buffer.byteLength(JSON.stringify(result) ?? '') > MAX_PAYLOAD_BYTES)
          throw Object.assign(
            new Error(
              `The state/task '${stateName}' returned a result with a size exceeding the maximum number of bytes service limit.`,
            ),
            { name: 'States.DataLimitExceeded' },
          );
        return invoke ? { Payload: result, StatusCode: 200 } : result;
      };
    }
    machines.set(`arn:aws:states:${REGION_ACCOUNT}:stateMachine:${file.name}`, {
      // Validated by test/unit/jobs/state-machines.test.ts (see localDefinition).
      machine: new StateMachine(definition, { validationOptions: { noValidate: true } }),
      handlers,
      retryIntervals,
      resources,
    });
  }

  const executions = new Map<string, Execution>();
  const journal = new ExecutionJournal(options.journalFile);
  // A twin that stops keeps its running executions in the journal: the next start resumes them.
  let closing = false;
  const now = () => Date.now() / 1000;

  function start(input: JsonObject, restarts = 0): JsonObject {
    const stateMachineArn = String(input.stateMachineArn);
    const machine = machines.get(stateMachineArn);
    if (!machine)
      throw new JsonProtocolError('StateMachineDoesNotExist', `State machine does not exist: ${stateMachineArn}`);
    const name = typeof input.name === 'string' ? input.name : randomUUID();
    const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const text = typeof input.input === 'string' ? input.input : '{}';
    const existing = executions.get(executionArn);
    if (existing) {
      if (existing.input === text && existing.status === 'RUNNING')
        return { executionArn, startDate: existing.startDate };
      throw new JsonProtocolError('ExecutionAlreadyExists', `Execution already exists: ${executionArn}`);
    }
    const run = machine.machine.run(executionInput(text), {
      overrides: {
        taskResourceLocalHandlers: Object.fromEntries(
          Object.entries(machine.handlers).map(([state, handler]) => [state, (input: unknown) => handler(input, name)]),
        ) as TaskHandlers,
        retryIntervalOverrides: machine.retryIntervals,
      },
    });
    const history: HistoryEvent[] = [];
    void historyEvents(run.eventLogs, machine.resources, history).catch(() => undefined);
    const execution: Execution = {
      history,
      executionArn,
      stateMachineArn,
      name,
      input: text,
      startDate: now(),
      status: 'RUNNING',
      // Step Functions stops a `.sync` state's task or query when its execution stops.
      abort: () => {
        run.abort();
        if (options.ecsEndpoint !== undefined)
          void stopTasksStartedBy(options.ecsEndpoint, name, 'the execution stopped').catch(() => undefined);
        if (options.athenaEndpoint !== undefined)
          void stopQueriesOf(options.athenaEndpoint, name).catch(() => undefined);
      },
    };
    executions.set(executionArn, execution);
    journal.running(executionArn, { stateMachineArn, name, input: text, restarts });
    void run.result.finally(() => closing || journal.ended(executionArn)).catch(() => undefined);
    run.result.then(
      (output: unknown) => {
        Object.assign(execution, { status: 'SUCCEEDED', output: JSON.stringify(output), stopDate: now() });
      },
      (error: unknown) => {
        if (execution.status === 'ABORTED') return;
        if (error instanceof ExecutionAbortedError) Object.assign(execution, { status: 'ABORTED', stopDate: now() });
        else if (error instanceof ExecutionTimeoutError)
          Object.assign(execution, { status: 'TIMED_OUT', error: 'States.Timeout', stopDate: now() });
        else {
          // A failed execution wraps the state's error: its name is the ASL error, its message the cause.
          const failure = (
            error instanceof ExecutionError && error.cause instanceof Error ? error.cause : error
          ) as Error;
          Object.assign(execution, { status: 'FAILED', error: failure.name, cause: failure.message, stopDate: now() });
        }
      },
    );
    return { executionArn, startDate: execution.startDate };
  }

  function find(input: JsonObject): Execution {
    const execution = executions.get(String(input.executionArn));
    if (!execution)
      throw new JsonProtocolError('ExecutionDoesNotExist', `Execution does not exist: ${String(input.executionArn)}`);
    return execution;
  }

  const operations: Record<string, JsonOperation> = {
    StartExecution: (input) => start(input),
    DescribeExecution: (input) => {
      const { abort: _abort, history: _history, ...visible } = find(input);
      return visible;
    },
    // Every event in one page, oldest first, or newest first with reverseOrder.
    GetExecutionHistory: (input) => {
      const { history } = find(input);
      return { events: input.reverseOrder === true ? [...history].reverse() : [...history] };
    },
    StopExecution: (input) => {
      const execution = find(input);
      if (execution.status === 'RUNNING') {
        Object.assign(execution, { status: 'ABORTED', stopDate: now(), error: input.error, cause: input.cause });
        execution.abort();
      }
      return { stopDate: execution.stopDate ?? now() };
    },
  };

  const server = await startJsonProtocolServer({
    name: 'Step Functions',
    targetPrefix: 'AWSStepFunctions',
    jsonVersion: '1.0',
    operations,
    internalErrorType: 'InternalServerError',
    port: options.port,
  });
  return {
    endpoint: server.endpoint,
    // Executions that died with the previous process: run again from their start (the job's
    // status writes accept a re-run of the same job), or recorded as failed after a second death.
    async resumeInterrupted() {
      let resumed = 0;
      for (const [executionArn, entry] of journal.takeInterrupted()) {
        if (entry.restarts < RESTARTS && machines.has(entry.stateMachineArn)) {
          start({ stateMachineArn: entry.stateMachineArn, name: entry.name, input: entry.input }, entry.restarts + 1);
          resumed += 1;
        } else {
          await options.onAbandoned?.(JSON.parse(entry.input));
          journal.ended(executionArn);
        }
      }
      return resumed;
    },
    machines: Object.fromEntries([...machines.keys()].map((arn) => [arn.slice(arn.lastIndexOf(':') + 1), arn])),
    async close() {
      closing = true;
      for (const execution of executions.values()) if (execution.status === 'RUNNING') execution.abort();
      await server.close();
    },
  };
}
