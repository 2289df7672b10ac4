/**
 * Local Step Functions: answers StartExecution, DescribeExecution and StopExecution over the
 * AWS JSON protocol, so functions start jobs with the real @aws-sdk/client-sfn, and runs each
 * execution of the very same ASL files CDK deploys with aws-local-stepfunctions. Every Task
 * state's Lambda ARN maps to the worker's handler module.
 */
import 'core-js/actual/promise/with-resolvers.js';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
  type RunOptions,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';

type TaskHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
import { workerPlaceholder, type WorkerSpec } from '../../functions/workers';
import { stateMachineFiles, substitute } from '../state-machines';

const REGION_ACCOUNT = 'us-east-1:000000000000';
const LAMBDA_INVOKE = 'arn:aws:states:::lambda:invoke';

export type WorkerFunction = (input: unknown, context: { awsRequestId: string }) => Promise<unknown>;

export interface LocalStepFunctionsOptions {
  readonly directory?: string;
  readonly workers: readonly WorkerSpec[];
  /** How a worker's handler is loaded; from functions/ by default. */
  readonly loadWorker?: (worker: WorkerSpec) => Promise<WorkerFunction>;
  readonly port?: number;
  /** Wait between retries of every state, instead of the definition's backoff (tests). */
  readonly retryIntervalMs?: number;
  /** TimeoutSeconds of every Task that has one, instead of the definition's (tests of timeouts). */
  readonly taskTimeoutSeconds?: number;
}

export interface LocalStepFunctions {
  readonly endpoint: string;
  /** ARN of each state machine, by name. */
  readonly machines: Readonly<Record<string, string>>;
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
}

class SfnError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Loads a worker's handler from functions/, as deployed. */
export const loadWorkerHandler = async (worker: WorkerSpec): Promise<WorkerFunction> => {
  const module = (await import(new URL(`../../functions/${worker.handler}.ts`, import.meta.url).href)) as { handler: WorkerFunction };
  return module.handler;
};

type StateDefinition = {
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
function taskStates(states: Record<string, StateDefinition> | undefined, found: Map<string, StateDefinition> = new Map()): Map<string, StateDefinition> {
  for (const [name, state] of Object.entries(states ?? {})) {
    if (state.Type === 'Task') found.set(name, state);
    taskStates(state.Iterator?.States, found);
    taskStates(state.ItemProcessor?.States, found);
    for (const branch of state.Branches ?? []) taskStates(branch.States, found);
  }
  return found;
}

export async function startLocalStepFunctions(options: LocalStepFunctionsOptions): Promise<LocalStepFunctions> {
  const load = options.loadWorker ?? loadWorkerHandler;
  const byArn = new Map<string, WorkerSpec>();
  const placeholders: Record<string, string> = {};
  for (const worker of options.workers) {
    const arn = `arn:aws:lambda:${REGION_ACCOUNT}:function:${worker.name}`;
    byArn.set(arn, worker);
    placeholders[workerPlaceholder(worker)] = arn;
  }

  const machines = new Map<
    string,
    { machine: StateMachine; handlers: Record<string, (input: unknown) => Promise<unknown>>; retryIntervals: Record<string, number> }
  >();
  for (const file of stateMachineFiles(options.directory)) {
    const definition = JSON.parse(substitute(readFileSync(file.path, 'utf8'), placeholders)) as StateMachineDefinition & { States: Record<string, StateDefinition> };
    const handlers: Record<string, (input: unknown) => Promise<unknown>> = {};
    const retryIntervals: Record<string, number> = {};
    for (const [stateName, state] of taskStates(definition.States)) {
      if (options.retryIntervalMs !== undefined && state.Retry) retryIntervals[stateName] = options.retryIntervalMs;
      if (options.taskTimeoutSeconds !== undefined && state.TimeoutSeconds !== undefined) state.TimeoutSeconds = options.taskTimeoutSeconds;
      const invoke = state.Resource === LAMBDA_INVOKE;
      const worker = byArn.get(invoke ? String(state.Parameters?.FunctionName) : String(state.Resource));
      if (!worker) throw new Error(`state ${stateName} of ${file.name} calls ${state.Resource}, which is not a known worker`);
      handlers[stateName] = async (input) => {
        const run = await load(worker);
        const payload = invoke ? (input as { Payload?: unknown }).Payload : input;
        const result = await run(payload, { awsRequestId: randomUUID() });
        return invoke ? { Payload: result, StatusCode: 200 } : result;
      };
    }
    // Validating a definition takes 100+ ms; it is done once here, and every execution reuses it.
    machines.set(`arn:aws:states:${REGION_ACCOUNT}:stateMachine:${file.name}`, { machine: new StateMachine(definition), handlers, retryIntervals });
  }

  const executions = new Map<string, Execution>();
  const now = () => Date.now() / 1000;

  function start(input: Record<string, unknown>): Record<string, unknown> {
    const stateMachineArn = String(input.stateMachineArn);
    const machine = machines.get(stateMachineArn);
    if (!machine) throw new SfnError('StateMachineDoesNotExist', `State machine does not exist: ${stateMachineArn}`);
    const name = typeof input.name === 'string' ? input.name : randomUUID();
    const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const text = typeof input.input === 'string' ? input.input : '{}';
    const existing = executions.get(executionArn);
    if (existing) {
      if (existing.input === text && existing.status === 'RUNNING') return { executionArn, startDate: existing.startDate };
      throw new SfnError('ExecutionAlreadyExists', `Execution already exists: ${executionArn}`);
    }
    const run = machine.machine.run(JSON.parse(text), {
      overrides: { taskResourceLocalHandlers: machine.handlers as TaskHandlers, retryIntervalOverrides: machine.retryIntervals },
    });
    const execution: Execution = { executionArn, stateMachineArn, name, input: text, startDate: now(), status: 'RUNNING', abort: run.abort };
    executions.set(executionArn, execution);
    run.result.then(
      (output: unknown) => {
        Object.assign(execution, { status: 'SUCCEEDED', output: JSON.stringify(output), stopDate: now() });
      },
      (error: unknown) => {
        if (execution.status === 'ABORTED') return;
        if (error instanceof ExecutionAbortedError) Object.assign(execution, { status: 'ABORTED', stopDate: now() });
        else if (error instanceof ExecutionTimeoutError) Object.assign(execution, { status: 'TIMED_OUT', error: 'States.Timeout', stopDate: now() });
        else {
          // A failed execution wraps the state's error: its name is the ASL error, its message the cause.
          const failure = (error instanceof ExecutionError && error.cause instanceof Error ? error.cause : error) as Error;
          Object.assign(execution, { status: 'FAILED', error: failure.name, cause: failure.message, stopDate: now() });
        }
      },
    );
    return { executionArn, startDate: execution.startDate };
  }

  function find(input: Record<string, unknown>): Execution {
    const execution = executions.get(String(input.executionArn));
    if (!execution) throw new SfnError('ExecutionDoesNotExist', `Execution does not exist: ${String(input.executionArn)}`);
    return execution;
  }

  const operations: Record<string, (input: Record<string, unknown>) => Record<string, unknown>> = {
    StartExecution: start,
    DescribeExecution: (input) => {
      const { abort: _abort, ...visible } = find(input);
      return visible as unknown as Record<string, unknown>;
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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const operation = String(req.headers['x-amz-target'] ?? '').replace(/^AWSStepFunctions\./, '');
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(payload));
    };
    try {
      const run = operations[operation];
      if (!run) throw new SfnError('UnknownOperationException', `${operation} is not supported by the local Step Functions`);
      reply(200, run(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>));
    } catch (error) {
      if (error instanceof SfnError) reply(400, { __type: error.type, message: error.message });
      else reply(500, { __type: 'InternalServerError', message: (error as Error).message });
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    machines: Object.fromEntries([...machines.keys()].map((arn) => [arn.slice(arn.lastIndexOf(':') + 1), arn])),
    async close() {
      for (const execution of executions.values()) if (execution.status === 'RUNNING') execution.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
