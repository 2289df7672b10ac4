/**
 * How the stack wires any job: a fixture definition (test/infra/fixtures/statemachines),
 * fixture workers and a fixture route that starts it, so the wiring rules are seen apart from
 * the real jobs (job-machines.test.ts): placeholders, the invoke policy, the ARN reaching only
 * the functions that start the job, and the configuration errors. The handler modules are
 * irrelevant to infra; they reuse a small existing one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes';
import { workerPlaceholder, type WorkerSpec } from '../../functions/workers';
import { DataPreparationStack } from '../../infra/stacks/data-preparation-stack';
import { stateMachineArnVariable, stateMachineFiles } from '../../infra/state-machines';
import type { RouteSpec } from '../../shared/http/route';
import {
  actionsOf,
  allResourcesOfType,
  deployedDefinition,
  fileAsset,
  FIXTURES_DIR,
  functionMarker,
  grants,
  removeScratchApps,
  roleStatements,
  rootKeys,
  sameTarget,
  scratchApp,
  synthesize,
  targetOf,
  workerOf,
  type FunctionInfo,
  type SynthesizedStage,
} from './synth';

const STATE_MACHINES = join(FIXTURES_DIR, 'statemachines');
const FIXTURE_HANDLER = 'meta/error-type';

const WORKERS: readonly WorkerSpec[] = [
  { name: 'import-worker', handler: FIXTURE_HANDLER, timeoutSeconds: 900, memoryMb: 3008, access: { table: 'write', dataKey: ['decrypt'] } },
  { name: 'record-failure', handler: FIXTURE_HANDLER, timeoutSeconds: 60, memoryMb: 512, access: { table: 'write' } },
  // Declared but named by no definition: no state machine may invoke it.
  { name: 'export-worker', handler: FIXTURE_HANDLER, timeoutSeconds: 600, memoryMb: 2048, access: { table: 'read' } },
];

// The meta routes, one of them starting the fixture job: enough to see the machine's ARN and
// StartExecution reach exactly the function that starts it.
const META_ROUTES = routes.filter((route) => route.tag === 'meta');
const STARTER: RouteSpec = { ...META_ROUTES[0]!, operationId: 'startFixtureImport', path: '/fixture-imports', method: 'POST', access: { startsJobs: ['import'] } };
const ROUTES: readonly RouteSpec[] = [...META_ROUTES, STARTER];

let stage: SynthesizedStage;

beforeAll(() => {
  stage = synthesize({ stage: 'jobs', routes: ROUTES, workers: WORKERS, stateMachinesDir: STATE_MACHINES, nag: true });
});
afterAll(() => {
  stage?.close();
  removeScratchApps();
});

const worker = (name: string): FunctionInfo => workerOf(stage, name);

const stateMachine = () => {
  const machines = allResourcesOfType(stage, 'AWS::StepFunctions::StateMachine');
  expect(machines).toHaveLength(1);
  return machines[0]!;
};

describe('fixture', () => {
  it('the fixture definition names two of the three workers', () => {
    const [file] = stateMachineFiles(STATE_MACHINES);
    expect(file?.name).toBe('import');
    expect(new Set(file?.placeholders)).toEqual(new Set(['ImportWorkerFunctionArn', 'RecordFailureFunctionArn']));
    expect(WORKERS.map(workerPlaceholder)).toContain('ExportWorkerFunctionArn');
  });
});

describe('workers', () => {
  it('are in the jobs nested stack with their timeout and memory, nodejs22.x on arm64', () => {
    for (const spec of WORKERS) {
      const fn = worker(spec.name);
      expect(fn.view.name).toBe('Jobs');
      expect(fn.properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Timeout: spec.timeoutSeconds, MemorySize: spec.memoryMb });
    }
  });

  it('get exactly their declared access', () => {
    const keys = rootKeys(stage);
    const onKey = (fn: FunctionInfo, key: (typeof keys)['data']) => grants(fn).filter((grant) => sameTarget(grant.target, key)).map((grant) => grant.action);
    const importer = worker('import-worker');
    expect(actionsOf(importer)).toContain('dynamodb:PutItem');
    expect(onKey(importer, keys.data)).toEqual(['kms:Decrypt']);
    expect(importer.environment.DATA_KEY_ID).toBeDefined();
    const recorder = worker('record-failure');
    expect(actionsOf(recorder)).toContain('dynamodb:UpdateItem');
    expect(onKey(recorder, keys.data)).toEqual([]);
    const exporter = worker('export-worker');
    expect(actionsOf(exporter)).toContain('dynamodb:Query');
    expect(actionsOf(exporter)).not.toContain('dynamodb:PutItem');
    for (const fn of [importer, recorder, exporter]) expect(onKey(fn, keys.signing)).toEqual([]);
  });
});

describe('state machine', () => {
  it('is loaded from the file unchanged, with a substitution for every placeholder', () => {
    const { resource } = stateMachine();
    const uploaded = fileAsset(stage, resource.Properties.DefinitionS3Location.Key);
    expect(uploaded).toBe(readFileSync(join(STATE_MACHINES, 'import.asl.json'), 'utf8'));
    expect(Object.keys(resource.Properties.DefinitionSubstitutions).sort()).toEqual(['ImportWorkerFunctionArn', 'RecordFailureFunctionArn']);
  });

  it('references each worker function ARN and leaves no ${...} unresolved', () => {
    const { view, resource } = stateMachine();
    for (const [placeholder, name] of [
      ['ImportWorkerFunctionArn', 'import-worker'],
      ['RecordFailureFunctionArn', 'record-failure'],
    ] as const) {
      const value = resource.Properties.DefinitionSubstitutions[placeholder];
      expect(value['Fn::GetAtt']?.[1]).toBe('Arn');
      expect(sameTarget(targetOf(view, value), { view: worker(name).view, logicalId: worker(name).logicalId, attribute: undefined })).toBe(true);
    }
    const { text, definition } = deployedDefinition(stage, stateMachine());
    expect(text).not.toMatch(/\$\{/);
    expect(definition.States.RunImport.Parameters.FunctionName).toBe(functionMarker(worker('import-worker')));
    expect(definition.States.RecordFailure.Parameters.FunctionName).toBe(functionMarker(worker('record-failure')));
  });

  it('keeps retries with backoff, the catch and the timeouts', () => {
    const { definition } = deployedDefinition(stage, stateMachine());
    const run = definition.States.RunImport;
    expect(run.TimeoutSeconds).toBe(900);
    expect(run.HeartbeatSeconds).toBe(120);
    expect(run.Retry.length).toBeGreaterThan(0);
    for (const retry of run.Retry) {
      expect(retry.BackoffRate).toBeGreaterThan(1);
      expect(retry.IntervalSeconds).toBeGreaterThan(0);
      expect(retry.MaxAttempts).toBeGreaterThan(0);
    }
    expect(run.Catch).toEqual([expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'RecordFailure' })]);
    expect(definition.TimeoutSeconds).toBe(3600);
  });

  it('logs every event, without execution data', () => {
    const { view, resource } = stateMachine();
    const logging = resource.Properties.LoggingConfiguration;
    expect(logging.Level).toBe('ALL');
    expect(logging.IncludeExecutionData).toBe(false);
    const destination = targetOf(view, logging.Destinations[0].CloudWatchLogsLogGroup.LogGroupArn)!;
    expect(destination.view.json.Resources[destination.logicalId].Type).toBe('AWS::Logs::LogGroup');
  });

  it('its role may invoke exactly the workers its definition names', () => {
    const { view, resource } = stateMachine();
    const roleId = targetOf(view, resource.Properties.RoleArn)!.logicalId;
    expect(view.json.Resources[roleId].Properties.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: 'states.amazonaws.com' });
    const statements = roleStatements(view, resource.Properties.RoleArn);
    const lambda = statements.filter((statement: any) => [statement.Action].flat().some((action: string) => action.startsWith('lambda:')));
    expect(lambda).toHaveLength(1);
    expect(lambda[0].Action).toBe('lambda:InvokeFunction');
    const invoked = [lambda[0].Resource].flat().map((arn: unknown) => targetOf(view, arn)?.logicalId);
    expect(invoked.sort()).toEqual([worker('import-worker').logicalId, worker('record-failure').logicalId].sort());
    expect(invoked).not.toContain(worker('export-worker').logicalId);
    // Only the logs delivery API (which has no resource-level permissions) is on '*'.
    for (const statement of statements.filter((candidate: any) => candidate.Resource === '*')) {
      for (const action of [statement.Action].flat()) expect(action).toMatch(/^logs:/);
    }
  });

  it('only the route that starts it learns its ARN and may start it', () => {
    const machine = stateMachine();
    const asMachine = { view: machine.view, logicalId: machine.logicalId, attribute: undefined };
    const routeFunctions = stage.functions.filter((fn) => ROUTES.some((route) => fn.description.includes(`(${route.operationId},`)));
    expect(routeFunctions).toHaveLength(ROUTES.length);
    for (const fn of routeFunctions) {
      const starts = fn.description.includes(`(${STARTER.operationId},`);
      const value = fn.environment[stateMachineArnVariable('import')];
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
    for (const spec of WORKERS) expect(Object.keys(worker(spec.name).environment).filter((name) => name.endsWith('_STATE_MACHINE_ARN'))).toEqual([]);
  });

  it('passes the AWS Solutions checks with its acknowledged findings', () => {
    const report = JSON.parse(readFileSync(join(stage.assemblyDir, 'validation-report.json'), 'utf8'));
    const nag = report.pluginReports.find((plugin: any) => plugin.pluginName === 'AwsSolutions');
    expect(nag.conclusion).toBe('success');
    expect(nag.violations).toEqual([]);
    expect(new Set(nag.suppressedViolations.map((violation: any) => violation.ruleName))).toEqual(
      new Set(['AwsSolutions-L1', 'AwsSolutions-APIG4', 'AwsSolutions-IAM5[Resource::*]', 'AwsSolutions-SF2']),
    );
  });
});

describe('configuration errors fail synthesis before any bundling', () => {
  const attempt = (workers: readonly WorkerSpec[], routeTable: readonly RouteSpec[] = ROUTES) => () =>
    new DataPreparationStack(scratchApp(), 'DataPreparation-broken', {
      stage: 'broken',
      routes: routeTable,
      workers,
      stateMachinesDir: STATE_MACHINES,
    });

  it('a placeholder no worker fills', () => {
    expect(attempt(WORKERS.filter((spec) => spec.name !== 'record-failure'))).toThrow(/import.*\$\{RecordFailureFunctionArn\}/);
  });

  it('a state machine without any workers', () => {
    expect(attempt([])).toThrow(/no workers/);
  });

  it('a worker declared twice', () => {
    expect(attempt([...WORKERS, WORKERS[0]!])).toThrow(/import-worker is declared twice/);
  });

  it('a route that starts a job without a state machine', () => {
    const typo: RouteSpec = { ...STARTER, access: { startsJobs: ['imports'] } };
    expect(attempt(WORKERS, [...META_ROUTES, typo])).toThrow(/route startFixtureImport starts jobs on "imports", but there is no test\/infra\/fixtures\/statemachines\/imports\.asl\.json; state machines: import/);
  });

  it('a worker that starts jobs', () => {
    const starter: WorkerSpec = { ...WORKERS[2]!, access: { table: 'read', startsJobs: ['import'] } };
    expect(attempt([...WORKERS.slice(0, 2), starter])).toThrow(/worker export-worker declares startsJobs; workers never start jobs/);
  });
});
