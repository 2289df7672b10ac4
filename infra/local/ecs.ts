/**
 * Local ECS: answers RunTask, DescribeTasks, ListTasks and StopTask over the AWS JSON protocol
 * for the engine tasks of the jobs' Fargate branch (infra/fargate-branch.ts), and runs each task
 * for real, as Fargate would: the same entry point (functions/jobs/fargate-task.ts, bundled as
 * deployed) in an OS process of its own, never in the twin's, with the environment contract of
 * the task definition (the functions' settings, JOB_WORKER, JOB_RUNS_ON, TASK_MEMORY_MB) plus
 * the container overrides (JOB_INPUT), its memory as its cap (V8's heap bound, and the engine's
 * memory limit through TASK_MEMORY_MB) and a scratch folder of its own that goes when the task
 * stops, as a task's ephemeral storage does. A task is its process group: stopping it (StopTask:
 * SIGTERM, then SIGKILL after STOP_TIMEOUT_MS) or its death takes its engine processes with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runsOnFargate, taskDefinitionPlaceholder, type WorkerSpec } from '../../shared/jobs/define-job';
import { SETTINGS } from '../../shared/config';
import { TASK_MEMORY_VARIABLE, TASK_STORAGE_VARIABLE } from '../../shared/engine/limits';
import { JOB_WORKER_VARIABLE, TASK_OVERRIDES_LIMIT } from '../../shared/jobs/launch';
import { RUNS_ON_VARIABLE } from '../../shared/runs-on';
import { TASK_WORKERS } from '../../functions/jobs/task-workers';
import { assertTaskWorkers } from '../../shared/jobs/task-workers';
import { engineModuleBundle } from './engine-child-bundle';
import { JsonProtocolError, startJsonProtocolServer, type JsonObject } from './json-protocol';

const REGION_ACCOUNT = 'us-east-1:000000000000';
const ENTRY = fileURLToPath(new URL('../../functions/jobs/fargate-task.ts', import.meta.url));
/** ECS waits stopTimeout (30 s by default) between SIGTERM and SIGKILL; the twin, not as long. */
export const STOP_TIMEOUT_MS = 2_000;
/** V8's heap bound, as a share of the task's memory: the rest is DuckDB's (60 %, engine/limits.ts) and the OS's. */
const HEAP_SHARE = 0.25;

/** The cluster and network values the twin fills the Fargate branch's placeholders with. */
export const LOCAL_ENGINE_NETWORK: Readonly<Record<string, string>> = {
  EngineClusterArn: `arn:aws:ecs:${REGION_ACCOUNT}:cluster/dps-engine-local`,
  EngineSecurityGroupId: 'sg-local',
  EngineSubnet1: 'subnet-local-1',
  EngineSubnet2: 'subnet-local-2',
};

/** The ARN of a worker's task definition in the twin. */
export function localTaskDefinitionArn(worker: Pick<WorkerSpec, 'name'>): string {
  return `arn:aws:ecs:${REGION_ACCOUNT}:task-definition/dps-${worker.name}:1`;
}

/** The placeholders of every Fargate worker's task definition and of the cluster, with the twin's values. */
export function localTaskPlaceholders(workers: readonly WorkerSpec[]): Record<string, string> {
  const fargate = workers.filter(runsOnFargate);
  if (fargate.length === 0) return {};
  return {
    ...LOCAL_ENGINE_NETWORK,
    ...Object.fromEntries(fargate.map((worker) => [taskDefinitionPlaceholder(worker), localTaskDefinitionArn(worker)])),
  };
}

/**
 * The task's size as the stage's settings give it (FARGATE_TASK_MEMORY_MB, FARGATE_TASK_STORAGE_GIB
 * in the twin's environment, as CDK reads them: infra/stacks/engine-tasks.ts), else the worker's
 * declared memory and no storage of its own: this machine has not a deployed task's 30 GiB.
 */
function taskSize(worker: WorkerSpec): { memoryMb: number; storageMb?: number } {
  const stated = (name: 'FARGATE_TASK_MEMORY_MB' | 'FARGATE_TASK_STORAGE_GIB') => {
    const text = process.env[name];
    return text === undefined || text === '' ? undefined : SETTINGS[name].parse(text);
  };
  const storageGib = stated('FARGATE_TASK_STORAGE_GIB');
  return {
    memoryMb: stated('FARGATE_TASK_MEMORY_MB') ?? worker.memoryMb,
    ...(storageGib === undefined ? {} : { storageMb: storageGib * 1024 }),
  };
}

/** The twin's environment as a task's: a task is no Lambda, so Lambda's own variables (its memory) stay out. */
function taskEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_LAMBDA_')));
}

interface Task {
  readonly taskArn: string;
  readonly taskDefinitionArn: string;
  readonly clusterArn: string;
  readonly startedBy?: string;
  readonly createdAt: number;
  readonly scratch: string;
  lastStatus: 'PROVISIONING' | 'RUNNING' | 'STOPPED';
  desiredStatus: 'RUNNING' | 'STOPPED';
  stopCode?: 'EssentialContainerExited' | 'UserInitiated' | 'TaskFailedToStart';
  stoppedReason?: string;
  stoppedAt?: number;
  exitCode?: number;
  process?: ChildProcess;
}

/** A running or stopped task as the tests see it: its process's id while it runs. */
export interface LocalTaskView {
  readonly taskArn: string;
  readonly worker: string;
  readonly startedBy?: string;
  readonly lastStatus: Task['lastStatus'];
  readonly pid?: number;
  readonly scratch: string;
}

export interface LocalEcs {
  readonly endpoint: string;
  /** Every task since start, newest last. */
  tasks(): LocalTaskView[];
  close(): Promise<void>;
}

export interface LocalEcsOptions {
  readonly workers: readonly WorkerSpec[];
  /** The folder under which each task gets its scratch folder (the twin's WORK_DIRECTORY). */
  readonly scratchRoot: string;
  readonly port?: number;
}

/** What a container override names: `environment` as {name, value} pairs. */
function overrideEnvironment(input: JsonObject): Record<string, string> {
  const overrides = (input.overrides as { containerOverrides?: { environment?: { name: string; value: string }[] }[] })
    ?.containerOverrides;
  return Object.fromEntries((overrides ?? []).flatMap((o) => o.environment ?? []).map((e) => [e.name, e.value]));
}

/** Kills a task's process group: the task's process and every process it started. */
function killGroup(task: Task, signal: NodeJS.Signals): void {
  const pid = task.process?.pid;
  if (pid === undefined || task.lastStatus === 'STOPPED') return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

export async function startLocalEcs(options: LocalEcsOptions): Promise<LocalEcs> {
  const fargate = options.workers.filter(runsOnFargate);
  assertTaskWorkers(TASK_WORKERS, fargate);
  const definitions = new Map(fargate.map((worker) => [localTaskDefinitionArn(worker), worker]));
  // When every job runs on a task (npm start -- --fargate-above 0, the bench), the bundle is made
  // now rather than by the first task; otherwise only if a task runs (most test files run none).
  if (fargate.length > 0 && process.env.FARGATE_ABOVE_BYTES === '0')
    void engineModuleBundle(ENTRY).catch(() => undefined);
  const tasks = new Map<string, Task>();
  const now = () => Date.now() / 1000;

  function stopped(task: Task, exitCode: number | undefined, code: Task['stopCode'], reason: string): void {
    if (task.lastStatus === 'STOPPED') return;
    // The engine processes the task started die with it, as a container's do.
    killGroup(task, 'SIGKILL');
    Object.assign(task, {
      lastStatus: 'STOPPED',
      desiredStatus: 'STOPPED',
      exitCode,
      stopCode: task.stopCode ?? code,
      stoppedReason: task.stoppedReason ?? reason,
      stoppedAt: now(),
    });
    rmSync(task.scratch, { recursive: true, force: true });
  }

  async function launch(task: Task, worker: WorkerSpec, overrides: Record<string, string>): Promise<void> {
    try {
      // Bundled as deployed, once per process: a task starts in plain Node, without tsx's loader.
      const bundle = await engineModuleBundle(ENTRY);
      if (task.desiredStatus === 'STOPPED') return stopped(task, undefined, 'UserInitiated', 'stopped before it ran');
      mkdirSync(task.scratch, { recursive: true });
      const size = taskSize(worker);
      const child = spawn(
        process.execPath,
        [`--max-old-space-size=${Math.max(256, Math.floor(size.memoryMb * HEAP_SHARE))}`, bundle],
        {
          // The task definition's environment: what the functions read, as the twin set it.
          env: {
            ...taskEnvironment(),
            [JOB_WORKER_VARIABLE]: worker.name,
            [RUNS_ON_VARIABLE]: 'fargate',
            [TASK_MEMORY_VARIABLE]: String(size.memoryMb),
            ...(size.storageMb === undefined ? {} : { [TASK_STORAGE_VARIABLE]: String(size.storageMb) }),
            WORK_DIRECTORY: task.scratch,
            ...overrides,
          },
          detached: true,
          stdio: ['ignore', 'inherit', 'inherit'],
        },
      );
      task.process = child;
      task.lastStatus = 'RUNNING';
      child.once('exit', (code, signal) => {
        // Docker reports a container killed by a signal as 128 + its number (SIGKILL: 137).
        const exitCode = code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 6);
        stopped(task, exitCode, 'EssentialContainerExited', 'Essential container in task exited');
      });
      child.once('error', (error) => stopped(task, undefined, 'TaskFailedToStart', error.message));
    } catch (error) {
      stopped(task, undefined, 'TaskFailedToStart', (error as Error).message);
    }
  }

  function runTask(input: JsonObject): JsonObject {
    const taskDefinitionArn = String(input.taskDefinition);
    const worker = definitions.get(taskDefinitionArn);
    if (!worker)
      throw new JsonProtocolError('ClientException', `Unable to describe task definition ${taskDefinitionArn}`);
    if (input.launchType !== 'FARGATE') throw new JsonProtocolError('InvalidParameterException', 'launchType FARGATE');
    // As ECS refuses them: the overrides' JSON holds at most 8192 characters.
    if (JSON.stringify(input.overrides ?? {}).length > TASK_OVERRIDES_LIMIT)
      throw new JsonProtocolError(
        'InvalidParameterException',
        `Container Overrides length must be at most ${TASK_OVERRIDES_LIMIT}`,
      );
    const id = randomUUID().replace(/-/g, '');
    const task: Task = {
      taskArn: `arn:aws:ecs:${REGION_ACCOUNT}:task/dps-engine-local/${id}`,
      taskDefinitionArn,
      clusterArn: String(input.cluster ?? LOCAL_ENGINE_NETWORK.EngineClusterArn),
      ...(typeof input.startedBy === 'string' ? { startedBy: input.startedBy } : {}),
      createdAt: now(),
      scratch: join(options.scratchRoot, `task-${id}`),
      lastStatus: 'PROVISIONING',
      desiredStatus: 'RUNNING',
    };
    tasks.set(task.taskArn, task);
    void launch(task, worker, overrideEnvironment(input));
    return { tasks: [describe(task)], failures: [] };
  }

  function describe(task: Task): JsonObject {
    const { process: _process, scratch: _scratch, exitCode, ...visible } = task;
    const worker = definitions.get(task.taskDefinitionArn)!;
    return {
      ...visible,
      launchType: 'FARGATE',
      containers: [{ name: 'worker', lastStatus: task.lastStatus, ...(exitCode === undefined ? {} : { exitCode }) }],
      memory: String(taskSize(worker).memoryMb),
    };
  }

  function stop(task: Task, reason: string): void {
    if (task.lastStatus === 'STOPPED') return;
    Object.assign(task, { desiredStatus: 'STOPPED', stopCode: 'UserInitiated', stoppedReason: reason });
    killGroup(task, 'SIGTERM');
    setTimeout(() => killGroup(task, 'SIGKILL'), STOP_TIMEOUT_MS).unref();
  }

  const server = await startJsonProtocolServer({
    name: 'ECS',
    targetPrefix: 'AmazonEC2ContainerServiceV20141113',
    jsonVersion: '1.1',
    internalErrorType: 'ServerException',
    port: options.port,
    operations: {
      RunTask: runTask,
      DescribeTasks: (input) => {
        const arns = (input.tasks as string[] | undefined) ?? [];
        const found = arns.map((arn) => tasks.get(arn));
        return {
          tasks: found.filter((task) => task !== undefined).map(describe),
          failures: arns.filter((_, index) => !found[index]).map((arn) => ({ arn, reason: 'MISSING' })),
        };
      },
      ListTasks: (input) => ({
        taskArns: [...tasks.values()]
          .filter((task) => input.startedBy === undefined || task.startedBy === input.startedBy)
          .filter((task) => input.desiredStatus === undefined || task.desiredStatus === input.desiredStatus)
          .map((task) => task.taskArn),
      }),
      StopTask: (input) => {
        const task = tasks.get(String(input.task));
        if (!task) throw new JsonProtocolError('InvalidParameterException', `The referenced task was not found.`);
        stop(task, typeof input.reason === 'string' ? input.reason : 'Task stopped by user');
        return { task: describe(task) };
      },
    },
  });

  return {
    endpoint: server.endpoint,
    tasks: () =>
      [...tasks.values()].map((task) => ({
        taskArn: task.taskArn,
        worker: definitions.get(task.taskDefinitionArn)!.name,
        ...(task.startedBy === undefined ? {} : { startedBy: task.startedBy }),
        lastStatus: task.lastStatus,
        ...(task.lastStatus === 'STOPPED' || task.process?.pid === undefined ? {} : { pid: task.process.pid }),
        scratch: task.scratch,
      })),
    async close() {
      for (const task of tasks.values()) stopped(task, undefined, 'UserInitiated', 'the twin stopped');
      await server.close();
    },
  };
}
