/**
 * How the stack wires any job: fixture job declarations (one with its own definition,
 * test/infra/fixtures/statemachines/import.asl.json, one on the single-step template) and a
 * fixture route that starts the first, so the wiring rules are seen apart from the real jobs
 * (job-machines.test.ts): placeholders, the invoke policy, the ARN reaching only the functions
 * that start the job, and the configuration errors. The handler modules are irrelevant to
 * infra; they reuse a small existing one.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes';
import * as z from 'zod';
import { RECORD_JOB_FAILURE, workersOf } from '../../functions/jobs';
import { DataPreparationStack } from '../../infra/stacks/data-preparation-stack';
import { PROJECT_ROOT } from '../../infra/stacks/service-function';
import { jobMachine } from '../../infra/state-machines';
import { defineJob, stateMachineArnVariable, type JobDeclaration, type WorkerSpec } from '../../shared/jobs/define-job';
import type { RouteSpec } from '../../shared/http/route';
import { actionsOfStatement, stateOf } from './documents';
import { asList, at, maybeAt, objectAt } from './json';
import {
  actionsOf,
  allResourcesOfType,
  awsSolutionsReport,
  deployedDefinition,
  FIXTURES_DIR,
  functionMarker,
  grants,
  propertiesOf,
  removeScratchApps,
  resourceOf,
  roleStatements,
  rootKeys,
  sameTarget,
  scratchApp,
  synthesize,
  SYNTH_TIMEOUT_MS,
  targetOf,
  workerOf,
  type FunctionInfo,
  type SynthesizedStage,
} from './synth';

const STATE_MACHINES = join(FIXTURES_DIR, 'statemachines');
const FIXTURE_HANDLER = 'meta/error-type';

const fixtureJob = (name: string, worker: WorkerSpec, definitionFile?: string): JobDeclaration =>
  defineJob({
    name,
    description: `Fixture job ${name}.`,
    params: z.unknown(),
    worker,
    ...(definitionFile ? { definitionFile } : {}),
  });

const IMPORT_JOB = fixtureJob(
  'import',
  {
    name: 'import-worker',
    handler: FIXTURE_HANDLER,
    timeoutSeconds: 900,
    memoryMb: 3008,
    access: { table: 'write', dataKey: ['decrypt'] },
  },
  join(STATE_MACHINES, 'import.asl.json'),
);
// On the single-step template; no route starts it, and the import machine may not invoke its worker.
const EXPORT_JOB = fixtureJob('export', {
  name: 'export-worker',
  handler: FIXTURE_HANDLER,
  timeoutSeconds: 600,
  memoryMb: 2048,
  access: { table: 'read' },
});
const JOBS = [IMPORT_JOB, EXPORT_JOB];
const WORKERS = workersOf(JOBS);
const RECORDER = RECORD_JOB_FAILURE.name;

// The meta routes, one of them starting the fixture job: enough to see the machine's ARN and
// StartExecution reach exactly the function that starts it.
const META_ROUTES = routes.filter((route) => route.tag === 'meta');
const STARTER: RouteSpec = {
  ...META_ROUTES[0]!,
  operationId: 'startFixtureImport',
  path: '/fixture-imports',
  method: 'POST',
  access: { startsJobs: [IMPORT_JOB] },
};
const ROUTES: readonly RouteSpec[] = [...META_ROUTES, STARTER];

let stage: SynthesizedStage;

beforeAll(() => {
  // Not bundled: nothing here reads a bundle, and CDK bundles synchronously (job-machines.test.ts reads the workers' bundles).
  stage = synthesize({ stage: 'jobs', routes: ROUTES, jobs: JOBS, nag: true, bundle: false });
}, SYNTH_TIMEOUT_MS);
afterAll(() => {
  stage?.close();
  removeScratchApps();
});

const worker = (name: string): FunctionInfo => workerOf(stage, name);

const stateMachine = (name = 'import') => {
  const machines = allResourcesOfType(stage, 'AWS::StepFunctions::StateMachine');
  expect(machines).toHaveLength(JOBS.length);
  const found = machines.filter(({ logicalId }) =>
    logicalId.startsWith(`${name[0]!.toUpperCase()}${name.slice(1)}StateMachine`),
  );
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

describe('fixture', () => {
  it("the fixture definition's job-local names become the job's worker and the recorder", () => {
    const machine = jobMachine(IMPORT_JOB);
    expect(machine.name).toBe('import');
    expect(new Set(machine.placeholders)).toEqual(new Set(['ImportWorkerFunctionArn', 'RecordJobFailureFunctionArn']));
    expect(new Set(jobMachine(EXPORT_JOB).placeholders)).toEqual(
      new Set(['ExportWorkerFunctionArn', 'RecordJobFailureFunctionArn']),
    );
  });
});

describe('workers', () => {
  it('are in the jobs nested stack with their timeout and memory, nodejs22.x on arm64', () => {
    for (const spec of WORKERS) {
      const fn = worker(spec.name);
      expect(fn.view.name).toBe('Jobs');
      expect(fn.properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Timeout: spec.timeoutSeconds,
        MemorySize: spec.memoryMb,
      });
    }
  });

  it('get exactly their declared access', () => {
    const keys = rootKeys(stage);
    const onKey = (fn: FunctionInfo, key: (typeof keys)['data']) =>
      grants(fn)
        .filter((grant) => sameTarget(grant.target, key))
        .map((grant) => grant.action);
    const importer = worker('import-worker');
    expect(actionsOf(importer)).toContain('dynamodb:PutItem');
    expect(onKey(importer, keys.data)).toEqual(['kms:Decrypt']);
    expect(importer.environment.DATA_KEY_ID).toBeDefined();
    const recorder = worker(RECORDER);
    expect(actionsOf(recorder)).toContain('dynamodb:UpdateItem');
    expect(onKey(recorder, keys.data)).toEqual([]);
    const exporter = worker('export-worker');
    expect(actionsOf(exporter)).toContain('dynamodb:Query');
    expect(actionsOf(exporter)).not.toContain('dynamodb:PutItem');
    for (const fn of [importer, recorder, exporter]) expect(onKey(fn, keys.signing)).toEqual([]);
  });
});

describe('state machine', () => {
  it('is the rendered definition of its job, with a substitution for every placeholder', () => {
    const { resource } = stateMachine();
    expect(propertiesOf(resource).DefinitionString).toBe(jobMachine(IMPORT_JOB).definition);
    expect(Object.keys(objectAt(resource, 'Properties', 'DefinitionSubstitutions')).sort()).toEqual([
      'ImportWorkerFunctionArn',
      'RecordJobFailureFunctionArn',
    ]);
  });

  it('a job without its own file gets the single-step template, naming its worker', () => {
    const { definition } = deployedDefinition(stage, stateMachine('export'));
    expect(definition.Comment).toContain('Fixture job export.');
    expect(stateOf(definition, 'Work').Parameters?.FunctionName).toBe(functionMarker(worker('export-worker')));
    expect(stateOf(definition, 'RecordFailure').Parameters?.FunctionName).toBe(functionMarker(worker(RECORDER)));
  });

  it('references each worker function ARN and leaves no ${...} unresolved', () => {
    const { view, resource } = stateMachine();
    for (const [placeholder, name] of [
      ['ImportWorkerFunctionArn', 'import-worker'],
      ['RecordJobFailureFunctionArn', RECORDER],
    ] as const) {
      const value = at(resource, 'Properties', 'DefinitionSubstitutions', placeholder);
      expect(maybeAt(value, 'Fn::GetAtt', 1)).toBe('Arn');
      expect(
        sameTarget(targetOf(view, value), {
          view: worker(name).view,
          logicalId: worker(name).logicalId,
          attribute: undefined,
        }),
      ).toBe(true);
    }
    const { text, definition } = deployedDefinition(stage, stateMachine());
    expect(text).not.toMatch(/\$\{/);
    expect(stateOf(definition, 'RunImport').Parameters?.FunctionName).toBe(functionMarker(worker('import-worker')));
    expect(stateOf(definition, 'RecordFailure').Parameters?.FunctionName).toBe(functionMarker(worker(RECORDER)));
  });

  it('keeps retries with backoff, the catch and the timeouts', () => {
    const { definition } = deployedDefinition(stage, stateMachine());
    const run = stateOf(definition, 'RunImport');
    expect(run.TimeoutSeconds).toBe(900);
    expect(run.HeartbeatSeconds).toBe(120);
    expect(run.Retry?.length).toBeGreaterThan(0);
    for (const retry of run.Retry ?? []) {
      expect(retry.BackoffRate).toBeGreaterThan(1);
      expect(retry.IntervalSeconds).toBeGreaterThan(0);
      expect(retry.MaxAttempts).toBeGreaterThan(0);
    }
    expect(run.Catch).toEqual([expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'RecordFailure' })]);
    expect(definition.TimeoutSeconds).toBe(3600);
  });

  it('logs every event, without execution data', () => {
    const { view, resource } = stateMachine();
    const logging = objectAt(resource, 'Properties', 'LoggingConfiguration');
    expect(logging.Level).toBe('ALL');
    expect(logging.IncludeExecutionData).toBe(false);
    const destination = targetOf(view, at(logging, 'Destinations', 0, 'CloudWatchLogsLogGroup', 'LogGroupArn'))!;
    expect(resourceOf(destination).Type).toBe('AWS::Logs::LogGroup');
  });

  it('its role may invoke exactly the workers its definition names', () => {
    const { view, resource } = stateMachine();
    const roleArn = propertiesOf(resource).RoleArn;
    const role = resourceOf({ view, logicalId: targetOf(view, roleArn)!.logicalId });
    expect(at(role, 'Properties', 'AssumeRolePolicyDocument', 'Statement', 0, 'Principal')).toEqual({
      Service: 'states.amazonaws.com',
    });
    const statements = roleStatements(view, roleArn);
    const lambda = statements.filter((statement) =>
      actionsOfStatement(statement).some((action) => action.startsWith('lambda:')),
    );
    expect(lambda).toHaveLength(1);
    expect(lambda[0]!.Action).toBe('lambda:InvokeFunction');
    const invoked = asList(lambda[0]!.Resource).map((arn) => targetOf(view, arn)?.logicalId);
    expect(invoked.sort()).toEqual([worker('import-worker').logicalId, worker(RECORDER).logicalId].sort());
    expect(invoked).not.toContain(worker('export-worker').logicalId);
    // Only the logs delivery API and X-Ray's tracing (which have no resource-level permissions) are on '*'.
    for (const statement of statements.filter((candidate) => candidate.Resource === '*')) {
      for (const action of actionsOfStatement(statement)) expect(action).toMatch(/^(logs|xray):/);
    }
  });

  it('only the route that starts it learns its ARN and may start it', () => {
    const machine = stateMachine();
    const asMachine = { view: machine.view, logicalId: machine.logicalId, attribute: undefined };
    const routeFunctions = stage.functions.filter((fn) =>
      ROUTES.some((route) => fn.description.includes(`(${route.operationId},`)),
    );
    expect(routeFunctions).toHaveLength(ROUTES.length);
    for (const fn of routeFunctions) {
      const starts = fn.description.includes(`(${STARTER.operationId},`);
      const value = fn.environment[stateMachineArnVariable(IMPORT_JOB)];
      const startGrants = grants(fn).filter((grant) => grant.action.startsWith('states:'));
      if (starts) {
        expect(sameTarget(targetOf(fn.view, value), asMachine)).toBe(true);
        expect(startGrants.map((grant) => grant.action)).toEqual(['states:StartExecution']);
        expect(sameTarget(startGrants[0]!.target, asMachine)).toBe(true);
      } else {
        expect(value, fn.description).toBeUndefined();
        expect(startGrants, fn.description).toEqual([]);
      }
    }
    // Workers never start jobs.
    for (const spec of WORKERS)
      expect(Object.keys(worker(spec.name).environment).filter((name) => name.endsWith('_STATE_MACHINE_ARN'))).toEqual(
        [],
      );
  });

  it('passes the AWS Solutions checks with its acknowledged findings', () => {
    const nag = awsSolutionsReport(stage);
    expect(nag.conclusion).toBe('success');
    expect(nag.violations).toEqual([]);
    expect(new Set(nag.suppressedViolations.map((violation) => violation.ruleName))).toEqual(
      // The data bucket's objects: acknowledged on the retention sweep, which deletes expired versions' files.
      new Set([
        'AwsSolutions-L1',
        'AwsSolutions-APIG4',
        'AwsSolutions-IAM5[Resource::*]',
        'AwsSolutions-IAM5[Resource::<DataBucketArn>/*]',
        // The stage's schedule group, acknowledged on the sweep and the schedules' tick (infra/stacks/schedule-access.ts).
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/data-preparation-jobs/*]',
      ]),
    );
  });
});

describe('configuration errors fail synthesis before any bundling', () => {
  const attempt =
    (jobs: readonly JobDeclaration[], routeTable: readonly RouteSpec[] = ROUTES) =>
    () =>
      new DataPreparationStack(scratchApp(), 'DataPreparation-broken', { stage: 'broken', routes: routeTable, jobs });

  it('a placeholder no worker fills', () => {
    const unfilled = fixtureJob(
      'echo',
      { ...EXPORT_JOB.worker, name: 'echo-job-worker' },
      join(PROJECT_ROOT, 'test/integration/local/fixtures/statemachines/echo.asl.json'),
    );
    expect(attempt([IMPORT_JOB, unfilled])).toThrow(/echo.*\$\{EchoWorkerFunctionArn\}/);
  });

  it('a job declared twice', () => {
    expect(attempt([...JOBS, IMPORT_JOB])).toThrow(/job import is declared twice/);
  });

  it('a worker declared twice', () => {
    expect(attempt([...JOBS, fixtureJob('reimport', IMPORT_JOB.worker)])).toThrow(/import-worker is declared twice/);
  });

  it('a route that starts a job that is not deployed', () => {
    const typo: RouteSpec = { ...STARTER, access: { startsJobs: [{ name: 'imports' }] } };
    expect(attempt(JOBS, [...META_ROUTES, typo])).toThrow(
      /route startFixtureImport starts jobs "imports", which is not in the deployed job list; jobs: import, export/,
    );
  });

  it('a worker that starts jobs', () => {
    const starter = fixtureJob('export', { ...EXPORT_JOB.worker, access: { table: 'read', startsJobs: [IMPORT_JOB] } });
    expect(attempt([IMPORT_JOB, starter])).toThrow(
      /worker export-worker declares startsJobs; workers never start jobs/,
    );
  });
});
