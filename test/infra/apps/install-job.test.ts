/**
 * The install and uninstall jobs of apps as deployed (shared/apps/install-job.ts): a state
 * machine each on the single-step template, their workers with the table and nothing else,
 * only the install route starting the install machine and only the uninstall route the
 * uninstall machine, and cdk-nag clean.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installRoutes } from '../../../functions/apps/install-routes';
import { RECORD_JOB_FAILURE } from '../../../functions/jobs';
import { installAppJob, uninstallAppJob } from '../../../shared/apps/install-job';
import { stateMachineArnVariable } from '../../../shared/jobs/define-job';
import { stateOf } from '../documents';
import {
  actionsOf,
  allResourcesOfType,
  awsSolutionsReport,
  deployedDefinition,
  functionMarker,
  functionOf,
  grants,
  resourcesOfType,
  rootKeys,
  sameTarget,
  SYNTH_TIMEOUT_MS,
  synthesize,
  workerOf,
  type SynthesizedStage,
  type Target,
} from '../synth';

const JOBS = [installAppJob, uninstallAppJob];
let stage: SynthesizedStage;

beforeAll(() => {
  stage = synthesize({
    stage: 'app-jobs',
    routes: Object.values(installRoutes),
    jobs: JOBS,
    nag: true,
    bundle: false,
  });
}, SYNTH_TIMEOUT_MS);
afterAll(() => stage?.close());

const pascal = (name: string) => name.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase());

function machine(name: string) {
  const found = allResourcesOfType(stage, 'AWS::StepFunctions::StateMachine').filter(({ logicalId }) =>
    logicalId.startsWith(`${pascal(name)}StateMachine`),
  );
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

function machineTarget(name: string): Target {
  const { view, logicalId } = machine(name);
  return { view, logicalId, attribute: undefined };
}

/** The service's table. */
function table(): Target {
  const [found] = resourcesOfType(stage.root, 'AWS::DynamoDB::Table');
  expect(found).toBeDefined();
  return { view: stage.root, logicalId: found![0], attribute: undefined };
}

describe('the install and uninstall machines', () => {
  it.each(JOBS)('$name runs its worker and hands failures to the recorder', (job) => {
    const { text, definition } = deployedDefinition(stage, machine(job.name));
    expect(text).not.toMatch(/\$\{/);
    expect(definition.Comment).toContain(job.description);
    expect(stateOf(definition, 'Work').Parameters?.FunctionName).toBe(functionMarker(workerOf(stage, job.worker.name)));
    expect(stateOf(definition, 'RecordFailure').Parameters?.FunctionName).toBe(
      functionMarker(workerOf(stage, RECORD_JOB_FAILURE.name)),
    );
  });
});

describe('the workers', () => {
  it.each(JOBS)('$worker.name reaches the table and its key, and nothing else', (job) => {
    const fn = workerOf(stage, job.worker.name);
    const keys = rootKeys(stage);
    const tableArn = table();
    for (const grant of grants(fn)) {
      if (grant.action.startsWith('dynamodb:')) {
        const on = grant.target ?? grant.objectsOf;
        expect(on && sameTarget(on, tableArn), `${grant.action} on ${JSON.stringify(grant.resource)}`).toBe(true);
      } else if (grant.action.startsWith('kms:')) {
        expect(sameTarget(grant.target, keys.table), grant.action).toBe(true);
      } else {
        // Lambda's own: its log group and traces.
        expect(grant.action, JSON.stringify(grant.resource)).toMatch(/^(logs|xray):/);
      }
    }
    const actions = [...actionsOf(fn)];
    expect(actions).toContain('dynamodb:PutItem');
    expect(actions.filter((action) => /^(s3|states|secretsmanager|lambda):/.test(action))).toEqual([]);
    // The table key only as the table's writes need it: never the token signing key.
    expect(actions).not.toContain('kms:Sign');
  });
});

describe('the routes', () => {
  it.each([
    ['installApp', installAppJob.name, installRoutes.install],
    ['uninstallApp', uninstallAppJob.name, installRoutes.uninstall],
  ] as const)('%s may start only the %s machine and learns only its ARN', (_, name, route) => {
    const fn = functionOf(stage, route.handler);
    const starts = grants(fn).filter((grant) => grant.action.startsWith('states:'));
    expect(starts.map((grant) => grant.action)).toEqual(['states:StartExecution']);
    expect(sameTarget(starts[0]!.target, machineTarget(name))).toBe(true);
    const variables = Object.keys(fn.environment).filter((variable) => variable.endsWith('_STATE_MACHINE_ARN'));
    expect(variables).toEqual([stateMachineArnVariable({ name })]);
  });

  it('the status route and the others start nothing', () => {
    for (const route of Object.values(installRoutes).filter(
      (candidate) => candidate !== installRoutes.install && candidate !== installRoutes.uninstall,
    )) {
      const fn = functionOf(stage, route.handler);
      expect(
        [...actionsOf(fn)].filter((action) => action.startsWith('states:')),
        route.operationId,
      ).toEqual([]);
    }
  });

  it('pass the AWS Solutions checks', () => {
    const nag = awsSolutionsReport(stage);
    expect(nag.conclusion).toBe('success');
    expect(nag.violations).toEqual([]);
  });
});
