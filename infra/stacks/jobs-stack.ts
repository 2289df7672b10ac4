/**
 * Asynchronous jobs in a nested stack: the worker functions and the state machines of the
 * jobs of functions/jobs.ts, each definition rendered from its ASL file or the single-step
 * template (infra/state-machines.ts: the very text the local twin runs). Every
 * `${<Worker>FunctionArn}` placeholder is filled with that worker's ARN; each machine's role
 * may invoke exactly the workers its definition names.
 * Engine workers get DuckDB from the stage's layer and scratch space for the data they load;
 * those that may run on Fargate also get a task definition (engine-tasks.ts), and their
 * machines' roles may run, follow and stop exactly those tasks. A machine that runs Athena
 * queries (infra/athena-branch.ts) may use the stage's workgroups and what a query reads and writes.
 * A function that declares `everyMinutes` gets an EventBridge rule that runs it at that rate.
 */
import { Duration, NestedStack, RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { type ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { runsOnFargate, workerPlaceholder, type JobDeclaration, type WorkerSpec } from '../../shared/jobs/define-job';
import type { RouteSpec } from '../../shared/http/route';
import { ENGINE_EXTERNAL_MODULES } from '../bundling';
import type { JobMachine } from '../state-machines';
import { ATHENA_START_QUERY_SYNC } from '../athena-branch';
import type { AccessTargets } from './access-targets';
import { athenaQueryFindings, athenaQueryStatements, tenantRoleBoundary, tenantRoleEnvironment } from './athena-access';
import { EngineTasks } from './engine-tasks';
import { LOG_RETENTION, ServiceFunction, type ServiceFunctionProps } from './service-function';
import { pascalCase } from './stage';

/**
 * /tmp of an engine worker, Lambda's largest: an import holds the source files, DuckDB's
 * spill files and the Parquet it writes at the same time.
 */
export const ENGINE_EPHEMERAL_STORAGE = Size.mebibytes(10_240);

export interface JobsStackProps {
  readonly workers: readonly WorkerSpec[];
  /** The jobs' state machines, checked (infra/state-machines.ts jobMachines). */
  readonly machines: readonly JobMachine[];
  /** Without state machines: workers never start jobs (see checkJobStarts). */
  readonly targets: Omit<AccessTargets, 'stateMachines'>;
  readonly environment: Readonly<Record<string, string>>;
  /** DuckDB for engine workers (the stage's one DuckDB layer); required when a worker declares engine. */
  readonly engineLayer?: ILayerVersion;
}

/**
 * Fails unless every job a route starts is deployed, and no worker declares one: machines
 * are built after the workers they invoke, so a worker cannot name one.
 */
export function checkJobStarts(
  routes: readonly RouteSpec[],
  workers: readonly WorkerSpec[],
  jobs: readonly JobDeclaration[],
): void {
  const known = new Set(jobs.map((job) => job.name));
  for (const route of routes) {
    for (const job of route.access.startsJobs ?? []) {
      if (!known.has(job.name)) {
        throw new Error(
          `route ${route.operationId} starts jobs "${job.name}", which is not in the deployed job list; jobs: ${[...known].join(', ') || 'none'}`,
        );
      }
    }
  }
  for (const worker of workers) {
    if ((worker.access.startsJobs ?? []).length > 0)
      throw new Error(`worker ${worker.name} declares startsJobs; workers never start jobs, routes do`);
  }
}

export class JobsStack extends NestedStack {
  /** By worker name. */
  readonly workers = new Map<string, ServiceFunction>();
  /** By state machine name (file name without .asl.json). */
  readonly stateMachines = new Map<string, StateMachine>();
  /** The Fargate tasks of the workers that may run there; none when no worker may. */
  readonly engineTasks?: EngineTasks;

  constructor(scope: Construct, id: string, props: JobsStackProps) {
    super(scope, id, { description: 'Data Preparation Service: job workers and state machines' });

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
        ...(worker.engine ? engineOptions(worker.name, props.engineLayer) : {}),
      });
      this.workers.set(worker.name, fn);
      byPlaceholder.set(workerPlaceholder(worker), fn);
      // A recurring function (the OpenLineage outbox's drain): its rule may invoke it alone.
      if (worker.everyMinutes !== undefined)
        new Rule(this, `${pascalCase(worker.name)}Schedule`, {
          description: `Runs ${worker.name} every ${worker.everyMinutes} minute(s)`,
          schedule: Schedule.rate(Duration.minutes(worker.everyMinutes)),
          targets: [new LambdaFunction(fn.function, { retryAttempts: 0 })],
        });
    }

    const fargateWorkers = props.workers.filter(runsOnFargate);
    if (fargateWorkers.length > 0) {
      if (!props.engineLayer) throw new Error('workers declare fargate, but the jobs stack was given no DuckDB layer');
      this.engineTasks = new EngineTasks(this, 'EngineTasks', {
        workers: fargateWorkers,
        targets,
        environment: props.environment,
        engineLayer: props.engineLayer,
      });
    }
    const taskValues: Readonly<Record<string, string>> = this.engineTasks?.substitutions ?? {};
    let tenantBoundary: ManagedPolicy | undefined;

    for (const file of props.machines) {
      const id = pascalCase(file.name);
      const invoked = file.placeholders.flatMap((placeholder) => byPlaceholder.get(placeholder) ?? []);
      const machine = new StateMachine(this, `${id}StateMachine`, {
        definitionBody: DefinitionBody.fromString(file.definition),
        // X-Ray: the execution's trace, which the workers' invocations join (shared/observability/tracing.ts).
        tracingEnabled: true,
        definitionSubstitutions: Object.fromEntries(
          file.placeholders.map((placeholder) => [
            placeholder,
            byPlaceholder.get(placeholder)?.function.functionArn ?? taskValues[placeholder]!,
          ]),
        ),
        logs: {
          destination: new LogGroup(this, `${id}Logs`, {
            retention: LOG_RETENTION,
            removalPolicy: RemovalPolicy.RETAIN,
          }),
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
      // The machine's Fargate branch runs its own worker's task (infra/fargate-branch.ts).
      const taskWorker = fargateWorkers.find((worker) => file.placeholders.includes(workerPlaceholder(worker)));
      if (taskWorker && this.engineTasks) {
        for (const statement of this.engineTasks.runStatements(taskWorker)) machine.addToRolePolicy(statement);
        Validations.of(machine).acknowledge({
          id: this.engineTasks.taskWildcardFinding,
          reason:
            'Tasks have ids only at run time: the machine may follow and stop the tasks of its engine cluster alone.',
        });
      }
      // Its Athena branch runs queries with the tenant's role, which the machine may assume (infra/athena-branch.ts).
      if (file.definition.includes(ATHENA_START_QUERY_SYNC) && props.targets.athena !== undefined) {
        for (const statement of athenaQueryStatements(machine, targets)) machine.addToRolePolicy(statement);
        for (const id of athenaQueryFindings(machine, targets))
          Validations.of(machine).acknowledge({
            id,
            reason:
              "Athena queries run with the per-tenant roles of trino-sql runs, made at a tenant's first run under the stage's role path; the worker hands over only its job's tenant's.",
          });
        tenantBoundary ??= tenantRoleBoundary(this, targets);
        // The workers that make the tenant roles: each role trusts them and this machine.
        const makers = props.workers.filter(
          (worker) => worker.access.athena === true && file.placeholders.includes(workerPlaceholder(worker)),
        );
        for (const fn of makers.map((worker) => this.workers.get(worker.name)!))
          for (const [name, value] of Object.entries(
            tenantRoleEnvironment(props.targets.athena, [fn.role.roleArn, machine.role.roleArn]),
          ))
            fn.function.addEnvironment(name, value);
      }
      Validations.of(machine).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only the CloudWatch Logs delivery actions Step Functions logging requires (logs:CreateLogDelivery and friends), and the X-Ray actions of tracing (xray:PutTraceSegments and friends), which support no resource-level permissions.',
      });
      this.stateMachines.set(file.name, machine);
    }
  }
}

/** What an engine worker differs in: DuckDB from the layer rather than the bundle, and a large /tmp. */
function engineOptions(
  worker: string,
  layer: ILayerVersion | undefined,
): Pick<ServiceFunctionProps, 'externalModules' | 'layers' | 'ephemeralStorageSize'> {
  if (!layer) throw new Error(`worker ${worker} declares engine, but the jobs stack was given no DuckDB layer`);
  return { externalModules: ENGINE_EXTERNAL_MODULES, layers: [layer], ephemeralStorageSize: ENGINE_EPHEMERAL_STORAGE };
}
