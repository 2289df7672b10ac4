/**
 * The Fargate branch as deployed (issue 39): every engine job's machine chooses between its
 * Lambda worker and its worker's task, the task definitions take the stage's size, each task
 * role holds exactly its worker's grants (plus reading its own code), the machines may run and
 * stop only their own task, and the tasks' network has no way out but the VPC endpoints. One
 * synthesis without bundling, with cdk-nag; no route but the stage's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, workersOf } from '../../functions/jobs';
import { runsOnFargate } from '../../shared/jobs/define-job';
import { ECS_RUN_TASK_SYNC } from '../../infra/fargate-branch';
import { actionsOfStatement, stateOf, type CfnResource } from './documents';
import { asList, at, stringAt, type Json } from './json';
import {
  allResourcesOfType,
  awsSolutionsReport,
  deployedDefinition,
  propertiesOf,
  roleStatements,
  synthesize,
  targetOf,
  workerOf,
  type SynthesizedStage,
  type TemplateView,
} from './synth';

const fargateJobs = jobs.filter((job) => runsOnFargate(job.worker));
let stage: SynthesizedStage;

beforeAll(() => {
  stage = synthesize({
    stage: 'engine-tasks',
    routes: [],
    nag: true,
    bundle: false,
    settings: { FARGATE_TASK_VCPUS: '8', FARGATE_TASK_MEMORY_MB: '32768', FARGATE_TASK_STORAGE_GIB: '120' },
  });
}, 120_000);
afterAll(() => stage?.close());

const pascal = (name: string) => name.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase());

function taskDefinition(worker: string): { view: TemplateView; logicalId: string; resource: CfnResource } {
  const found = allResourcesOfType(stage, 'AWS::ECS::TaskDefinition').filter(({ logicalId }) =>
    logicalId.startsWith(`EngineTasks${pascal(worker)}Task`),
  );
  expect(found, worker).toHaveLength(1);
  return found[0]!;
}

const statementKey = (statement: { Action?: Json; Resource?: Json; Condition?: Json }) =>
  JSON.stringify([[...asList(statement.Action ?? [])].sort(), statement.Resource, statement.Condition ?? null]);

describe('engine tasks', () => {
  it('the engine jobs are the eight that may run on Fargate', () => {
    expect(fargateJobs.map((job) => job.name).sort()).toEqual(
      [
        'direct-export',
        'export',
        'import',
        'multi-part-export',
        'node-schema-analysis',
        'recipe-run',
        'schema-analysis',
        'transfer',
      ].sort(),
    );
  });

  it('each machine chooses its launch before the work, and its Fargate step runs its own worker’s task privately', () => {
    for (const job of fargateJobs) {
      const [machine] = allResourcesOfType(stage, 'AWS::StepFunctions::StateMachine').filter(({ logicalId }) =>
        logicalId.startsWith(`${pascal(job.name)}StateMachine`),
      );
      const { definition } = deployedDefinition(stage, machine!);
      expect(definition.StartAt, job.name).toBe('ChooseLaunch');
      const choice = stateOf(definition, 'ChooseLaunch');
      expect(choice.Type).toBe('Choice');
      expect(at(choice, 'Default')).toBe('Work');
      expect(JSON.stringify(at(choice, 'Choices'))).toContain(
        '"NumericGreaterThanEqualsPath":"$.launch.fargate_above_bytes"',
      );
      const task = stateOf(definition, 'WorkOnFargate');
      const work = stateOf(definition, 'Work');
      expect(task.Resource).toBe(ECS_RUN_TASK_SYNC);
      expect(at(task, 'Catch')).toEqual(at(work, 'Catch'));
      expect(task.Next).toBe(work.Next);
      expect(at(task, 'Parameters', 'NetworkConfiguration', 'AwsvpcConfiguration', 'AssignPublicIp')).toBe('DISABLED');
      // The substitution names the worker's task definition.
      const substitutions = at(machine!.resource, 'Properties', 'DefinitionSubstitutions');
      const named = targetOf(machine!.view, at(substitutions, `${pascal(job.worker.name)}TaskDefinitionArn`));
      expect(named?.logicalId).toBe(taskDefinition(job.worker.name).logicalId);
    }
  });

  it('task definitions take the stage’s size and run the worker’s entry on ARM64, with the environment contract', () => {
    for (const job of fargateJobs) {
      const properties = propertiesOf(taskDefinition(job.worker.name).resource);
      expect(properties).toMatchObject({
        Cpu: '8192',
        Memory: '32768',
        EphemeralStorage: { SizeInGiB: 120 },
        RequiresCompatibilities: ['FARGATE'],
        NetworkMode: 'awsvpc',
        RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      });
      const [container] = asList(at(properties, 'ContainerDefinitions'));
      const environment = Object.fromEntries(
        asList(at(container, 'Environment')).map((entry) => [stringAt(entry, 'Name'), at(entry, 'Value')]),
      );
      expect(environment).toMatchObject({
        JOB_WORKER: job.worker.name,
        JOB_RUNS_ON: 'fargate',
        TASK_MEMORY_MB: '32768',
        TASK_STORAGE_MB: String(120 * 1024),
      });
      expect(at(container, 'LogConfiguration', 'LogDriver')).toBe('awslogs');
    }
  });

  it('each task role holds exactly its worker’s grants, and reading its own code', () => {
    for (const job of fargateJobs) {
      const { view, resource } = taskDefinition(job.worker.name);
      const task = roleStatements(view, at(resource, 'Properties', 'TaskRoleArn'));
      const own = new Set(['OwnCode', 'EngineLayer']);
      expect(task.filter((statement) => own.has(statement.Sid ?? '')).map(actionsOfStatement)).toEqual([
        ['s3:GetObject'],
        ['lambda:GetLayerVersion'],
      ]);
      // A task has neither the function's own log group nor its X-Ray tracing (tasks are not traced).
      const lambda = workerOf(stage, job.worker.name).statements.filter(
        (statement) =>
          statement.sid !== 'OwnLogGroup' && !statement.actions.every((action) => action.startsWith('xray:')),
      );
      expect(
        task
          .filter((statement) => !own.has(statement.Sid ?? ''))
          .map(statementKey)
          .sort(),
        job.worker.name,
      ).toEqual(
        lambda
          .map((statement) =>
            statementKey({
              Action: [...statement.actions],
              Resource: statement.resources.length === 1 ? statement.resources[0] : [...statement.resources],
              ...(statement.condition ? { Condition: statement.condition } : {}),
            }),
          )
          .sort(),
      );
      for (const statement of task) expect(asList(statement.Resource)).not.toContain('*');
    }
  });

  it('a machine may run only its own task definition and pass only that task’s roles, to ECS tasks', () => {
    for (const job of fargateJobs) {
      const [machine] = allResourcesOfType(stage, 'AWS::StepFunctions::StateMachine').filter(({ logicalId }) =>
        logicalId.startsWith(`${pascal(job.name)}StateMachine`),
      );
      const statements = roleStatements(machine!.view, at(machine!.resource, 'Properties', 'RoleArn'));
      const run = statements.filter((statement) => actionsOfStatement(statement).includes('ecs:RunTask'));
      const { logicalId, resource } = taskDefinition(job.worker.name);
      expect(run).toHaveLength(1);
      expect(targetOf(machine!.view, run[0]!.Resource)?.logicalId).toBe(logicalId);
      const pass = statements.filter((statement) => actionsOfStatement(statement).includes('iam:PassRole'));
      expect(pass).toHaveLength(1);
      expect(at(pass[0]!, 'Condition')).toEqual({ StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } });
      const passed = asList(pass[0]!.Resource).map((role) => targetOf(machine!.view, role)?.logicalId);
      expect(passed.sort()).toEqual(
        [
          targetOf(machine!.view, at(resource, 'Properties', 'TaskRoleArn'))?.logicalId,
          targetOf(machine!.view, at(resource, 'Properties', 'ExecutionRoleArn'))?.logicalId,
        ].sort(),
      );
    }
  });

  it('the tasks’ network: isolated subnets, no Internet or NAT gateway, endpoints for every service they call', () => {
    expect(allResourcesOfType(stage, 'AWS::EC2::InternetGateway')).toEqual([]);
    expect(allResourcesOfType(stage, 'AWS::EC2::NatGateway')).toEqual([]);
    for (const { resource } of allResourcesOfType(stage, 'AWS::EC2::Subnet'))
      expect(at(resource, 'Properties', 'MapPublicIpOnLaunch')).toBe(false);
    // ServiceName is com.amazonaws.<region>.<service>, joined from the region's reference.
    const services = allResourcesOfType(stage, 'AWS::EC2::VPCEndpoint').map(({ resource }) =>
      JSON.stringify(at(resource, 'Properties', 'ServiceName')),
    );
    for (const service of ['s3', 'dynamodb', 'kms', 'states', 'lambda', 'ecr.api', 'ecr.dkr', 'logs'])
      expect(
        services.filter((name) => name.includes(`".${service}"`)),
        service,
      ).toHaveLength(1);
    expect(
      allResourcesOfType(stage, 'AWS::ECR::PullThroughCacheRule').map(({ resource }) => propertiesOf(resource)),
    ).toEqual([expect.objectContaining({ UpstreamRegistryUrl: 'public.ecr.aws' })]);
  });

  it('cdk-nag passes', () => {
    const nag = awsSolutionsReport(stage);
    expect(nag.violations).toEqual([]);
    expect(nag.conclusion).toBe('success');
  });
});

// The worker list is the machines' (functions/jobs.ts); a worker that names fargate without a machine would not deploy.
it('every Fargate worker belongs to a job', () => {
  const names = new Set(jobs.map((job) => job.worker.name));
  for (const worker of workersOf(jobs).filter(runsOnFargate)) expect(names.has(worker.name)).toBe(true);
});
