/**
 * The Fargate branch of a job's state machine, derived from its declaration: a job whose worker
 * allows `fargate` (WorkerSpec.launchTypes) gets, before its work step, a `ChooseLaunch` Choice
 * state that reads the input's `launch` (shared/jobs/launch.ts) and sends the work either to the
 * step as written (a Lambda invocation) or to `WorkOnFargate`, an `ecs:runTask.sync` of the
 * same worker's task definition with the same retries of the runner's errors, the same Catch
 * and the same next state. The task reads the machine's input from JOB_INPUT
 * (functions/jobs/fargate-task.ts). CDK and the twin fill the placeholders it adds.
 */
import {
  runsOnFargate,
  taskDefinitionPlaceholder,
  workerPlaceholder,
  type WorkerSpec,
} from '../shared/jobs/define-job';
import { JOB_INPUT_VARIABLE } from '../shared/jobs/launch';

/** The container of every engine task definition: the name ContainerOverrides address. */
export const TASK_CONTAINER = 'worker';
/** Subnets the tasks run in: one private subnet per availability zone of the engine VPC. */
export const ENGINE_SUBNET_COUNT = 2;
/** The placeholders of the cluster and its network, filled by CDK (infra/stacks/engine-tasks.ts) and the twin. */
export const ENGINE_NETWORK_PLACEHOLDERS = [
  'EngineClusterArn',
  'EngineSecurityGroupId',
  ...Array.from({ length: ENGINE_SUBNET_COUNT }, (_, index) => `EngineSubnet${index + 1}`),
] as const;
/**
 * A task has no Lambda's 15 minutes; the machine's own TimeoutSeconds (3600) bounds the whole
 * execution, so the task gets what is left of it after the recorder's minute and a start.
 */
export const FARGATE_STEP_TIMEOUT_SECONDS = 3300;
export const ECS_RUN_TASK_SYNC = 'arn:aws:states:::ecs:runTask.sync';

type State = Record<string, unknown> & { Type?: string; Parameters?: Record<string, unknown>; Next?: string };
interface Definition {
  StartAt: string;
  States: Record<string, State>;
}

/** The Choice: `fargate` forced, or `auto` with inputs at or above the stage's threshold. */
function chooseLaunch(lambdaState: string): State {
  return {
    Type: 'Choice',
    Comment:
      'Where the work runs: on Fargate when a tenant admin forced it, or when the inputs weigh FARGATE_ABOVE_BYTES or more; on Lambda otherwise.',
    Choices: [
      {
        And: [
          { Variable: '$.launch', IsPresent: true },
          {
            Or: [
              { Variable: '$.launch.mode', StringEquals: 'fargate' },
              {
                And: [
                  { Variable: '$.launch.mode', StringEquals: 'auto' },
                  { Variable: '$.launch.input_bytes', NumericGreaterThanEqualsPath: '$.launch.fargate_above_bytes' },
                ],
              },
            ],
          },
        ],
        Next: 'WorkOnFargate',
      },
    ],
    Default: lambdaState,
  };
}

/** Step Functions' own errors of the ECS calls that a new attempt may pass: throttling, the service's hiccups. */
const ECS_TRANSIENT_ERRORS = ['ECS.AmazonECSException', 'ECS.ServerException', 'ECS.LimitExceededException'];

function workOnFargate(worker: WorkerSpec, lambda: State): State {
  const { ResultPath, Catch, Next, End } = lambda;
  return {
    Type: 'Task',
    Comment: `worker ${worker.name} as an ECS Fargate task (functions/jobs/fargate-task.ts); Step Functions stops the task when the execution stops or times out.`,
    Resource: ECS_RUN_TASK_SYNC,
    Parameters: {
      Cluster: '${EngineClusterArn}',
      TaskDefinition: `\${${taskDefinitionPlaceholder(worker)}}`,
      LaunchType: 'FARGATE',
      NetworkConfiguration: {
        AwsvpcConfiguration: {
          Subnets: ENGINE_NETWORK_PLACEHOLDERS.filter((name) => name.startsWith('EngineSubnet')).map(
            (name) => `\${${name}}`,
          ),
          SecurityGroups: ['${EngineSecurityGroupId}'],
          AssignPublicIp: 'DISABLED',
        },
      },
      Overrides: {
        ContainerOverrides: [
          { Name: TASK_CONTAINER, Environment: [{ Name: JOB_INPUT_VARIABLE, 'Value.$': 'States.JsonToString($)' }] },
        ],
      },
    },
    ResultSelector: { 'task_arn.$': '$.TaskArn' },
    ResultPath,
    TimeoutSeconds: FARGATE_STEP_TIMEOUT_SECONDS,
    Retry: [
      {
        ErrorEquals: ECS_TRANSIENT_ERRORS,
        IntervalSeconds: 5,
        MaxAttempts: 4,
        BackoffRate: 2,
        MaxDelaySeconds: 60,
        JitterStrategy: 'FULL',
      },
    ],
    ...(Catch === undefined ? {} : { Catch }),
    ...(Next === undefined ? { End } : { Next }),
  };
}

/**
 * The definition (global placeholders filled in for job-local ones) with its Fargate branch
 * when `worker` allows it; as it was otherwise. The worker's step must be the machine's first.
 */
export function withFargateBranch(definition: string, worker: WorkerSpec): string {
  if (!runsOnFargate(worker)) return definition;
  const parsed = JSON.parse(definition) as Definition;
  const functionArn = `\${${workerPlaceholder(worker)}}`;
  const lambdaState = parsed.StartAt;
  const first = parsed.States[lambdaState];
  if (first?.Type !== 'Task' || first.Parameters?.FunctionName !== functionArn)
    throw new Error(
      `worker ${worker.name} allows fargate, so its machine's first state must invoke it (${functionArn}); it starts at ${lambdaState}`,
    );
  for (const name of ['ChooseLaunch', 'WorkOnFargate'])
    if (name in parsed.States)
      throw new Error(`state ${name} is derived for a fargate worker; rename the machine's own`);
  const States = {
    ChooseLaunch: chooseLaunch(lambdaState),
    ...parsed.States,
    WorkOnFargate: workOnFargate(worker, first),
  };
  return JSON.stringify({ ...parsed, StartAt: 'ChooseLaunch', States }, null, 2);
}
