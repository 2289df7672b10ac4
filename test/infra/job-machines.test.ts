/**
 * The real jobs as deployed: the jobs of functions/jobs.ts with their workers
 * and the routes that start them and read what they write (the data-tables domain of the real
 * route table; api.test.ts checks every route's grants generically). One synthesis, with
 * cdk-nag and bundling (the DuckDB layer included), for the whole file.
 */
import { existsSync, openSync, readdirSync, readFileSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZER_HANDLER, routes } from '../../functions/routes';
import { ESM_BANNER } from '../../infra/bundling';
import { jobs, workersOf } from '../../functions/jobs';
import { duckDbVersion } from '../../infra/layers/duckdb-layer';
import { installForLambda } from '../../infra/layers/lambda-packages';
import { SWEEP_HANDLER } from '../../infra/stacks/retention-stack';
import { PROJECT_ROOT } from '../../infra/stacks/service-function';
import { runsOnFargate, stateMachineArnVariable } from '../../shared/jobs/define-job';
import { actionsOfStatement, nextOf, stateOf, type CfnResource } from './documents';
import { synthesizeBundled } from './synth-bundled';
import { actionsOnObjects, actionsOnTarget, asTarget } from './grants';
import { asList, stringAt } from './json';
import { duckDbLayer, engineLayersOf } from './layers';
import {
  actionsOf,
  allResourcesOfType,
  assetDir,
  awsSolutionsReport,
  bundleDir,
  dataBucket,
  deployedDefinition,
  functionMarker,
  functionOf,
  grants,
  propertiesOf,
  roleStatements,
  rootKeys,
  sameTarget,
  SYNTH_TIMEOUT_MS,
  targetOf,
  workerOf,
  type FunctionInfo,
  type SynthesizedTemplates,
  type Target,
} from './synth';
import {
  DATASET_STARTERS,
  DOMAIN_ROUTES,
  ENGINE_WORKERS,
  FAILURE_RECORDER,
  JOBS,
  LAMBDA_TRANSIENT_ERRORS,
} from './job-machines-support';

const workers = workersOf(jobs);

let stage: SynthesizedTemplates;

beforeAll(async () => {
  // Bundled: the root stack (authorizer, fallback, the DuckDB layer) and the workers, which the
  // checks below read; not the route functions (bundles.test.ts measures those).
  stage = await synthesizeBundled({
    stage: 'real-jobs',
    operationIds: DOMAIN_ROUTES.map((route) => route.operationId),
    nag: true,
    bundle: ['DataPreparation-real-jobs', 'DataPreparation-real-jobs/Jobs'],
  });
}, SYNTH_TIMEOUT_MS);
afterAll(() => stage?.close());

const routeFunction = (operationId: string): FunctionInfo => {
  const route = DOMAIN_ROUTES.find((candidate) => candidate.operationId === operationId);
  if (route === undefined) throw new Error(`no route ${operationId}`);
  return functionOf(stage, route.handler, (fn) => fn.description.includes(`(${operationId},`));
};
const worker = (name: string): FunctionInfo => workerOf(stage, name);
function machine(name: string): { view: SynthesizedTemplates['root']; logicalId: string; resource: CfnResource } {
  const found = allResourcesOfType(stage, 'AWS::StepFunctions::StateMachine').filter(({ logicalId }) =>
    logicalId.startsWith(`${pascal(name)}StateMachine`),
  );
  expect(found, name).toHaveLength(1);
  return found[0]!;
}
const pascal = (name: string) => name.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase());
const machineTarget = (name: string): Target => {
  const { view, logicalId } = machine(name);
  return { view, logicalId, attribute: undefined };
};

const objectActions = (fn: FunctionInfo): string[] => actionsOnObjects(fn, dataBucket(stage));
const machineVariables = (fn: FunctionInfo): string[] =>
  Object.keys(fn.environment).filter((name) => name.endsWith('_STATE_MACHINE_ARN'));

describe('state machines', () => {
  it('one per job of functions/jobs.ts, and the jobs here are all of them', () => {
    const names = jobs.map((job) => job.name);
    expect(names.sort()).toEqual(JOBS.map((job) => job.machine).sort());
    expect(allResourcesOfType(stage, 'AWS::StepFunctions::StateMachine')).toHaveLength(names.length);
  });

  describe.each(JOBS)('$machine', (job) => {
    const definition = () => deployedDefinition(stage, machine(job.machine)).definition;

    it(`runs ${job.worker} and hands failures to ${FAILURE_RECORDER}`, () => {
      const { text } = deployedDefinition(stage, machine(job.machine));
      expect(text).not.toMatch(/\$\{/);
      const deployed = definition();
      expect(stateOf(deployed, job.workState).Parameters?.FunctionName).toBe(functionMarker(worker(job.worker)));
      expect(stateOf(deployed, 'RecordFailure').Parameters?.FunctionName).toBe(
        functionMarker(worker(FAILURE_RECORDER)),
      );
      // The Lambda invocations; an engine job's Fargate branch runs a task (engine-tasks.test.ts).
      const invoked = Object.values(deployed.States)
        .filter((state) => state.Type === 'Task' && state.Resource === 'arn:aws:states:::lambda:invoke')
        .map((state) => state.Parameters?.FunctionName);
      expect(new Set(invoked)).toEqual(
        new Set([functionMarker(worker(job.worker)), functionMarker(worker(FAILURE_RECORDER))]),
      );
    });

    it('times the work step out before its Lambda does, and retries transient failures with backoff and jitter', () => {
      const work = stateOf(definition(), job.workState);
      // Below the worker's own timeout: an overrun is States.Timeout (10-1047), not a killed sandbox.
      expect(work.TimeoutSeconds).toBeGreaterThan(0);
      expect(work.TimeoutSeconds).toBeLessThan(workers.find((spec) => spec.name === job.worker)!.timeoutSeconds);
      const retried = (work.Retry ?? []).flatMap((retry) => retry.ErrorEquals);
      for (const error of ['Job.Transient', ...LAMBDA_TRANSIENT_ERRORS]) expect(retried, error).toContain(error);
      expect(retried).not.toContain('States.ALL');
      for (const retry of work.Retry ?? []) {
        expect(retry.BackoffRate).toBeGreaterThan(1);
        expect(retry.IntervalSeconds).toBeGreaterThan(0);
        expect(retry.MaxAttempts).toBeGreaterThan(0);
        expect(retry.MaxDelaySeconds).toBeGreaterThan(0);
        expect(retry.JitterStrategy).toBe('FULL');
      }
    });

    it('catches everything else into RecordFailure, which is retried itself and ends the execution as failed', () => {
      const deployed = definition();
      expect(stateOf(deployed, job.workState).Catch).toEqual([
        expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'RecordFailure' }),
      ]);
      const recorder = stateOf(deployed, 'RecordFailure');
      expect(recorder.Type).toBe('Task');
      expect(recorder.Retry?.length).toBeGreaterThan(0);
      expect((recorder.Retry ?? []).flatMap((retry) => retry.ErrorEquals)).toContain('States.ALL');
      expect(recorder.TimeoutSeconds).toBeGreaterThan(0);
      expect(nextOf(deployed, recorder).Type).toBe('Fail');
    });

    it('has a machine-level timeout that leaves room for a full work step', () => {
      const timeout = definition().TimeoutSeconds;
      expect(Number.isInteger(timeout)).toBe(true);
      expect(timeout).toBeGreaterThanOrEqual(workers.find((spec) => spec.name === job.worker)!.timeoutSeconds);
    });

    it('its role may invoke exactly its own workers', () => {
      const { view, resource } = machine(job.machine);
      const lambda = roleStatements(view, propertiesOf(resource).RoleArn).filter((statement) =>
        actionsOfStatement(statement).some((action) => action.startsWith('lambda:')),
      );
      expect(lambda).toHaveLength(1);
      expect(lambda[0]!.Action).toBe('lambda:InvokeFunction');
      const invoked = asList(lambda[0]!.Resource).map((arn) => targetOf(view, arn));
      expect(invoked).toHaveLength(2);
      for (const name of [job.worker, FAILURE_RECORDER])
        expect(
          invoked.some((target) => sameTarget(target, asTarget(worker(name)))),
          name,
        ).toBe(true);
    });

    it('logs every event, without execution data', () => {
      const logging = propertiesOf(machine(job.machine).resource).LoggingConfiguration;
      expect(logging).toMatchObject({ Level: 'ALL', IncludeExecutionData: false });
    });
  });
});

describe('starting jobs', () => {
  it.each([
    ['batchCreateDataVersions', 'import'],
    ['analyseDataVersionSchema', 'schema-analysis'],
    ['executeDatasetNode', 'recipe-run'],
    ['analyseDatasetNodeSchema', 'node-schema-analysis'],
  ])('%s may start only the %s machine and learns only its ARN', (operationId, name) => {
    const fn = routeFunction(operationId);
    const starts = grants(fn).filter((grant) => grant.action.startsWith('states:'));
    expect(starts.map((grant) => grant.action)).toEqual(['states:StartExecution']);
    expect(sameTarget(starts[0]!.target, machineTarget(name))).toBe(true);
    expect(machineVariables(fn)).toEqual([stateMachineArnVariable({ name })]);
    expect(sameTarget(targetOf(fn.view, fn.environment[stateMachineArnVariable({ name })]), machineTarget(name))).toBe(
      true,
    );
  });

  it('no other function may start a job or learns a machine ARN; workers never do', () => {
    const starters = new Set([
      ...['batchCreateDataVersions', 'analyseDataVersionSchema', ...DATASET_STARTERS].map(
        (operationId) => routeFunction(operationId).logicalId,
      ),
      // The schedules' tick starts a build as a user's run does (infra/stacks/schedules-stack.ts TICK_ACCESS).
      functionOf(stage, 'schedules/tick').logicalId,
    ]);
    // A cancel route stops the executions of the jobs it cancels, and may do nothing else with them.
    const cancels = routes.filter((route) => (route.access.stopsJobs ?? []).length > 0);
    const stoppers = new Set(
      stage.functions
        .filter((fn) => cancels.some((route) => fn.description.includes(`(${route.operationId},`)))
        .map((fn) => fn.logicalId),
    );
    expect(stoppers.size).toBeGreaterThan(0);
    for (const fn of stage.functions.filter((candidate) => !starters.has(candidate.logicalId))) {
      expect(
        [...actionsOf(fn)].filter((action) => action.startsWith('states:')),
        fn.description,
      ).toEqual(stoppers.has(fn.logicalId) ? ['states:StopExecution'] : []);
      if (!stoppers.has(fn.logicalId)) expect(machineVariables(fn), fn.description).toEqual([]);
    }
  });
});

describe('the data bucket', () => {
  it.each(['previewDataVersion', 'sampleDataVersion'])(
    '%s may read objects, never write or delete them',
    (operationId) => {
      const fn = routeFunction(operationId);
      expect(objectActions(fn)).toEqual(['s3:GetObject']);
      expect(actionsOnTarget(fn, rootKeys(stage).bucket)).toEqual(['kms:Decrypt']);
      expect(sameTarget(targetOf(fn.view, fn.environment.DATA_BUCKET), dataBucket(stage))).toBe(true);
    },
  );

  it.each(['deleteDataTable', 'batchDeleteDataVersions'])('%s may delete objects', (operationId) => {
    expect(objectActions(routeFunction(operationId))).toContain('s3:DeleteObject');
  });

  it('the bucket key only through S3', () => {
    const key = rootKeys(stage).bucket;
    const keyGrants = stage.functions.flatMap((fn) => grants(fn).filter((grant) => sameTarget(grant.target, key)));
    expect(keyGrants.length).toBeGreaterThan(0);
    for (const grant of keyGrants) {
      expect(grant.condition).toEqual({
        StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.amazonaws.com']] } },
      });
    }
  });

  it('functions that do not declare it get nothing of it, not even its name', () => {
    const declaring = new Set([
      ...DOMAIN_ROUTES.filter((route) => route.access.dataBucket !== undefined).map(
        (route) => routeFunction(route.operationId).logicalId,
      ),
      ...workers.filter((spec) => spec.access.dataBucket !== undefined).map((spec) => worker(spec.name).logicalId),
      functionOf(stage, SWEEP_HANDLER).logicalId,
    ]);
    const others = stage.functions.filter((fn) => !declaring.has(fn.logicalId));
    expect(others.length).toBeGreaterThan(0);
    for (const fn of others) {
      expect(
        [...actionsOf(fn)].filter((action) => action.startsWith('s3:')),
        fn.description,
      ).toEqual([]);
      expect(actionsOnTarget(fn, rootKeys(stage).bucket), fn.description).toEqual([]);
      expect(fn.environment.DATA_BUCKET, fn.description).toBeUndefined();
    }
  });
});

describe('bundles', () => {
  it('are bundled as minified ESM with the banner and a source map', () => {
    for (const fn of [worker(FAILURE_RECORDER), functionOf(stage, AUTHORIZER_HANDLER)]) {
      const dir = bundleDir(stage, fn);
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(code.startsWith(ESM_BANNER)).toBe(true);
      expect(code).toMatch(/export\s*\{[^}]*as handler\s*\}/);
      // Minified: thousands of characters per line, not formatted source.
      expect(code.length / code.split('\n').length).toBeGreaterThan(1000);
      expect(code).toContain('//# sourceMappingURL=index.mjs.map');
      expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
      // The AWS SDK v3 comes with the runtime.
      expect(code).not.toContain('@aws-sdk/client-dynamodb/package.json');
    }
  });
});

describe('workers', () => {
  it.each(ENGINE_WORKERS)('%s: DuckDB from the layer, 10 GiB of /tmp, and write access to the bucket', (name) => {
    const fn = worker(name);
    const spec = workers.find((candidate) => candidate.name === name)!;
    expect(spec.engine).toBe(true);
    expect(fn.properties).toMatchObject({
      Timeout: spec.timeoutSeconds,
      MemorySize: spec.memoryMb,
      EphemeralStorage: { Size: 10_240 },
    });
    expect(engineLayersOf(fn)).toEqual([duckDbLayer(stage).logicalId]);
    expect(objectActions(fn)).toEqual(['s3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject', 's3:PutObject']);
    expect(actionsOnTarget(fn, rootKeys(stage).bucket)).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    expect(fn.environment.DATA_BUCKET).toBeDefined();
    // The bundle imports DuckDB from the runtime's module path and carries none of it.
    const code = readFileSync(join(bundleDir(stage, fn), 'index.mjs'), 'utf8');
    expect(code).toMatch(/from\s*"@duckdb\/node-api"/);
    expect(code).not.toContain('node-bindings');
    expect(code).not.toContain('duckdb.node');
  });

  it(`${FAILURE_RECORDER}: no DuckDB layer, no bucket, default /tmp`, () => {
    const fn = worker(FAILURE_RECORDER);
    expect(engineLayersOf(fn)).toEqual([]);
    expect(fn.properties.EphemeralStorage).toBeUndefined();
    expect(objectActions(fn)).toEqual([]);
    expect([...actionsOf(fn)].filter((action) => action.startsWith('s3:'))).toEqual([]);
    expect(fn.environment.DATA_BUCKET).toBeUndefined();
    expect(readFileSync(join(bundleDir(stage, fn), 'index.mjs'), 'utf8')).not.toContain('@duckdb');
  });

  it('only functions that declare it may decrypt with the data key', () => {
    const key = rootKeys(stage).data;
    const declared = new Set([
      ...DOMAIN_ROUTES.filter((route) => route.access.dataKey?.includes('decrypt')).map(
        (route) => routeFunction(route.operationId).logicalId,
      ),
      ...workers.filter((spec) => spec.access.dataKey?.includes('decrypt')).map((spec) => worker(spec.name).logicalId),
    ]);
    expect(declared.has(worker('import-data-version').logicalId)).toBe(true);
    for (const fn of stage.functions) {
      const decrypts = grants(fn).some((grant) => grant.action === 'kms:Decrypt' && sameTarget(grant.target, key));
      expect(decrypts, fn.description).toBe(declared.has(fn.logicalId));
    }
  });
});

describe('the DuckDB layer', () => {
  it('is for the functions’ runtime and architecture', () => {
    const { properties } = duckDbLayer(stage);
    const fn = worker('import-data-version');
    expect(properties.CompatibleRuntimes).toEqual([fn.properties.Runtime]);
    expect(properties.CompatibleArchitectures).toEqual(fn.properties.Architectures);
    expect(properties.CompatibleArchitectures).toEqual(['arm64']);
  });

  it('carries the pinned @duckdb/node-api with the linux-arm64 (glibc) binding only, where Node.js layers are found', () => {
    const nodeModules = join(
      assetDir(stage, stringAt(duckDbLayer(stage).properties, 'Content', 'S3Key')),
      'nodejs',
      'node_modules',
    );
    const version = (path: string) =>
      (JSON.parse(readFileSync(join(nodeModules, path, 'package.json'), 'utf8')) as { version: string }).version;
    expect(version('@duckdb/node-api')).toBe(duckDbVersion());
    expect(readdirSync(join(nodeModules, '@duckdb')).sort()).toEqual([
      'node-api',
      'node-bindings',
      'node-bindings-linux-arm64',
    ]);
    expect(version('@duckdb/node-bindings-linux-arm64')).toBe(version('@duckdb/node-bindings'));
    // The binding is an ELF shared object for AArch64 (e_machine 183).
    const header = Buffer.alloc(20);
    const fd = openSync(join(nodeModules, '@duckdb', 'node-bindings-linux-arm64', 'duckdb.node'), 'r');
    readSync(fd, header, 0, 20, 0);
    closeSync(fd);
    expect(header.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(header.readUInt16LE(18)).toBe(183);
  });

  it('is the DuckDB the project runs locally', () => {
    const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(duckDbVersion()).toBe(manifest.dependencies['@duckdb/node-api']);
    const local = join(PROJECT_ROOT, 'node_modules', '@duckdb', 'node-api', 'package.json');
    expect(existsSync(local)).toBe(true);
    expect((JSON.parse(readFileSync(local, 'utf8')) as { version: string }).version).toBe(duckDbVersion());
  });

  it('refuses a version range: the layer must be reproducible', () => {
    expect(() =>
      installForLambda(
        { name: '@duckdb/node-api', version: '^1.5.5', verify: () => undefined },
        join(PROJECT_ROOT, 'node_modules', '.cache'),
      ),
    ).toThrow(/not an exact version/);
  });
});

describe('cdk-nag', () => {
  it('AWS Solutions checks pass; the data bucket objects are acknowledged on the functions that use them', () => {
    const nag = awsSolutionsReport(stage);
    expect(nag.conclusion).toBe('success');
    expect(nag.violations).toEqual([]);
    const objects = nag.suppressedViolations.filter(
      (violation) => violation.ruleName === 'AwsSolutions-IAM5[Resource::<DataBucketArn>/*]',
    );
    const users = [...DOMAIN_ROUTES, ...workers].filter((subject) => subject.access.dataBucket !== undefined);
    // The retention sweep deletes expired versions' objects too (SWEEP_ACCESS); a worker that may
    // run on Fargate holds the same grant in its task role.
    const tasks = workers.filter((spec) => runsOnFargate(spec) && spec.access.dataBucket !== undefined);
    expect(objects.flatMap((violation) => violation.violatingConstructs)).toHaveLength(users.length + 1 + tasks.length);
  });
});
