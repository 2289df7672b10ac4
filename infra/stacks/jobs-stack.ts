/**
 * Asynchronous jobs in a nested stack: the worker functions (functions/workers.ts) and the
 * state machines of statemachines/*.asl.json, loaded with DefinitionBody.fromFile (the very
 * files the local twin runs). Every `${<Worker>FunctionArn}` placeholder is filled with that
 * worker's ARN; each machine's role may invoke exactly the workers its definition names.
 * Engine workers get DuckDB from a layer and scratch space for the data they load.
 */
import { relative } from 'node:path';
import { Duration, NestedStack, RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { LayerVersion } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { workerPlaceholder, type WorkerSpec } from '../../functions/workers';
import type { RouteSpec } from '../../shared/http/route';
import { ENGINE_EXTERNAL_MODULES } from '../bundling';
import { duckDbLayer } from '../layers/duckdb-layer';
import type { StateMachineFile } from '../state-machines';
import type { AccessTargets } from './access';
import { LOG_RETENTION, PROJECT_ROOT, ServiceFunction, type ServiceFunctionProps } from './service-function';
import { pascalCase } from './stage';

/**
 * /tmp of an engine worker, Lambda's largest: an import holds the source files, DuckDB's
 * spill files and the Parquet it writes at the same time.
 */
export const ENGINE_EPHEMERAL_STORAGE = Size.mebibytes(10_240);

export interface JobsStackProps {
  readonly workers: readonly WorkerSpec[];
  readonly stateMachines: readonly StateMachineFile[];
  /** Without state machines: workers never start jobs (see checkJobStarts). */
  readonly targets: Omit<AccessTargets, 'stateMachines'>;
  readonly environment: Readonly<Record<string, string>>;
}

/**
 * Fails unless every placeholder of every definition names a worker: a state machine with an
 * unfilled `${...}` would deploy and fail at run time.
 */
export function checkPlaceholders(stateMachines: readonly StateMachineFile[], workers: readonly WorkerSpec[]): void {
  const known = new Set(workers.map(workerPlaceholder));
  const names = new Set<string>();
  for (const worker of workers) {
    if (names.has(worker.name)) throw new Error(`worker ${worker.name} is declared twice`);
    names.add(worker.name);
  }
  for (const machine of stateMachines) {
    const missing = machine.placeholders.filter((placeholder) => !known.has(placeholder));
    if (missing.length > 0) {
      throw new Error(
        `state machine ${machine.name} (${machine.path}) has placeholders no worker fills: ${missing.map((name) => `\${${name}}`).join(', ')}; ` +
          `workers provide: ${[...known].map((name) => `\${${name}}`).join(', ') || 'nothing (no workers)'}`,
      );
    }
  }
}

/**
 * Fails unless every job a route starts has its statemachines/<name>.asl.json, and no worker
 * declares one: machines are built after the workers they invoke, so a worker cannot name one.
 */
export function checkJobStarts(routes: readonly RouteSpec[], workers: readonly WorkerSpec[], stateMachines: readonly StateMachineFile[], directory: string): void {
  const known = new Set(stateMachines.map((machine) => machine.name));
  for (const route of routes) {
    for (const name of route.access.startsJobs ?? []) {
      if (!known.has(name)) {
        throw new Error(
          `route ${route.operationId} starts jobs on "${name}", but there is no ${relative(PROJECT_ROOT, directory) || '.'}/${name}.asl.json; ` +
            `state machines: ${[...known].join(', ') || 'none'}`,
        );
      }
    }
  }
  for (const worker of workers) {
    if ((worker.access.startsJobs ?? []).length > 0) throw new Error(`worker ${worker.name} declares startsJobs; workers never start jobs, routes do`);
  }
}

export class JobsStack extends NestedStack {
  /** By worker name. */
  readonly workers = new Map<string, ServiceFunction>();
  /** By state machine name (file name without .asl.json). */
  readonly stateMachines = new Map<string, StateMachine>();
  /** DuckDB for engine workers; created with the first of them. */
  private duckDbLayer: LayerVersion | undefined;

  constructor(scope: Construct, id: string, props: JobsStackProps) {
    super(scope, id, { description: 'Data Preparation Service: job workers and state machines' });
    checkPlaceholders(props.stateMachines, props.workers);

    const targets: AccessTargets = { ...props.targets, stateMachines: new Map() };
    const byPlaceholder = new Map<string, ServiceFunction>();
    for (const worker of props.workers) {
      const fn = new ServiceFunction(this, `${pascalCase(worker.name)}Worker`, {
        handler: worker.handler,
        description: `worker ${worker.name} (functions/${worker.handler}.ts)`,
        access: worker.access,
        targets,
        environment: props.environment,
        timeout: Duration.seconds(worker.timeoutSeconds),
        memorySize: worker.memoryMb,
        ...(worker.engine ? this.engineOptions() : {}),
      });
      this.workers.set(worker.name, fn);
      byPlaceholder.set(workerPlaceholder(worker), fn);
    }

    for (const file of props.stateMachines) {
      const id = pascalCase(file.name);
      const invoked = file.placeholders.map((placeholder) => byPlaceholder.get(placeholder)!);
      const machine = new StateMachine(this, `${id}StateMachine`, {
        definitionBody: DefinitionBody.fromFile(file.path),
        definitionSubstitutions: Object.fromEntries(file.placeholders.map((placeholder, index) => [placeholder, invoked[index]!.function.functionArn])),
        logs: {
          destination: new LogGroup(this, `${id}Logs`, { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.RETAIN }),
          level: LogLevel.ALL,
          // Execution data carries tenant data; the log shows the flow and errors, not payloads.
          includeExecutionData: false,
        },
      });
      if (invoked.length > 0) {
        machine.addToRolePolicy(
          new PolicyStatement({
            sid: 'InvokeOwnWorkers',
            actions: ['lambda:InvokeFunction'],
            resources: [...new Set(invoked)].map((fn) => fn.function.functionArn),
          }),
        );
      }
      Validations.of(machine).acknowledge(
        {
          id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
          reason:
            'Only the CloudWatch Logs delivery actions Step Functions logging requires (logs:CreateLogDelivery and friends), which support no resource-level permissions.',
        },
        {
          id: 'AwsSolutions::AwsSolutions-SF2',
          reason: 'The service does not use X-Ray; jobs are followed through the execution history, the ALL-level execution log and the traceId in structured logs.',
        },
      );
      this.stateMachines.set(file.name, machine);
    }
  }

  /** What an engine worker differs in: DuckDB from the layer rather than the bundle, and a large /tmp. */
  private engineOptions(): Pick<ServiceFunctionProps, 'externalModules' | 'layers' | 'ephemeralStorageSize'> {
    this.duckDbLayer ??= duckDbLayer(this, 'DuckDbLayer');
    return { externalModules: ENGINE_EXTERNAL_MODULES, layers: [this.duckDbLayer], ephemeralStorageSize: ENGINE_EPHEMERAL_STORAGE };
  }
}
