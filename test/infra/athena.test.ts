/**
 * trino-sql runs as deployed (docs/recipe-languages.md): on a stage that names its Athena
 * workgroups, the recipe-run worker may use exactly the stage's per-tenant workgroups
 * (`<ATHENA_WORKGROUP_PREFIX>*`), Glue catalogue, databases (`<ATHENA_DATABASE_PREFIX>*`) and
 * their tables, with the actions the run makes; no other worker touches Athena or Glue; a stage
 * without Athena grants none; cdk-nag passes with the prefixes' wildcards acknowledged. The
 * recipe-run machine waits for a trino node's query itself (`athena:startQueryExecution.sync`,
 * infra/athena-branch.ts), and its role may start, follow and stop queries in the stage's
 * workgroups only, read what they read and write only under the runs' Athena folders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetCancelRoutes } from '../../functions/datasets/cancel-routes';
import { nodeSchemaAnalysisJob, recipeRunJob } from '../../shared/datasets/jobs';
import { parseSettings } from '../../infra/stacks/settings';
import { ATHENA_START_QUERY_SYNC } from '../../infra/athena-branch';
import { ATHENA_QUERY_TIMEOUT_SECONDS } from '../../shared/engine/athena/handoff';
import { actionsOfStatement, stateOf } from './documents';
import { asList, at } from './json';
import {
  actionsOf,
  allResourcesOfType,
  awsSolutionsReport,
  deployedDefinition,
  roleStatements,
  functionOf,
  grants,
  SYNTH_TIMEOUT_MS,
  synthesize,
  type SynthesizedStage,
} from './synth';

const JOBS = [recipeRunJob, nodeSchemaAnalysisJob];
let withAthena: SynthesizedStage;
let withoutAthena: SynthesizedStage;

beforeAll(() => {
  withAthena = synthesize({
    stage: 'athena',
    routes: [datasetCancelRoutes.cancelRun],
    jobs: JOBS,
    nag: true,
    bundle: false,
    settings: parseSettings({ ATHENA_WORKGROUP_PREFIX: 'dps-athena-', ATHENA_DATABASE_PREFIX: 'dps_athena_' }),
  });
  withoutAthena = synthesize({
    stage: 'no-athena',
    routes: [datasetCancelRoutes.cancelRun],
    jobs: JOBS,
    bundle: false,
  });
}, SYNTH_TIMEOUT_MS);
afterAll(() => {
  withAthena?.close();
  withoutAthena?.close();
});

const athenaOrGlue = (stage: SynthesizedStage, handler: string) =>
  grants(functionOf(stage, handler)).filter(
    (grant) => grant.action.startsWith('athena:') || grant.action.startsWith('glue:'),
  );

describe('Athena and Glue access', () => {
  it('lets the recipe-run worker use the stage’s workgroups, databases and tables only', () => {
    const granted = athenaOrGlue(withAthena, 'jobs/run-recipe');
    const byAction = new Map<string, string[]>();
    for (const grant of granted)
      byAction.set(grant.action, [...(byAction.get(grant.action) ?? []), JSON.stringify(grant.resource)]);
    expect([...byAction.keys()].sort()).toEqual([
      'athena:CreateWorkGroup',
      'athena:GetQueryExecution',
      'athena:GetWorkGroup',
      'athena:StartQueryExecution',
      'athena:StopQueryExecution',
      'athena:TagResource',
      'athena:UpdateWorkGroup',
      'glue:BatchDeleteTable',
      'glue:CreateDatabase',
      'glue:CreateTable',
      'glue:DeleteTable',
      'glue:GetDatabase',
      'glue:GetTable',
      'glue:TagResource',
    ]);
    for (const [action, resources] of byAction) {
      if (action.startsWith('athena:')) {
        expect(resources, action).toHaveLength(1);
        expect(resources[0], action).toContain(':workgroup/dps-athena-*');
      } else {
        expect(resources, action).toHaveLength(3);
        for (const [index, ending] of [':catalog"', ':database/dps_athena_*"', ':table/dps_athena_*/*"'].entries())
          expect(resources[index], action).toContain(ending);
      }
    }
  });

  it('grants Athena and Glue to no other worker, and none on a stage without Athena', () => {
    expect(
      [...actionsOf(functionOf(withAthena, 'jobs/analyse-node-schema'))].filter((action) =>
        /^(athena|glue):/.test(action),
      ),
    ).toEqual([]);
    expect(athenaOrGlue(withoutAthena, 'jobs/run-recipe')).toEqual([]);
  });

  it('lets the cancel of a run list and drop the stage’s Glue tables only: no Athena, no other Glue action', () => {
    const granted = athenaOrGlue(withAthena, datasetCancelRoutes.cancelRun.handler);
    expect([...new Set(granted.map((grant) => grant.action))].sort()).toEqual([
      'glue:BatchDeleteTable',
      'glue:GetTables',
    ]);
    for (const grant of granted)
      expect(JSON.stringify(grant.resource)).toMatch(/:catalog"|:database\/dps_athena_\*"|:table\/dps_athena_\*\/\*"/);
    expect(athenaOrGlue(withoutAthena, datasetCancelRoutes.cancelRun.handler)).toEqual([]);
  });

  /** The job's state machine: its deployed definition and its role's statements. */
  function machineOf(stage: SynthesizedStage, job: string) {
    const pascal = job.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase());
    const [machine] = allResourcesOfType(stage, 'AWS::StepFunctions::StateMachine').filter(({ logicalId }) =>
      logicalId.startsWith(`${pascal}StateMachine`),
    );
    return {
      definition: deployedDefinition(stage, machine!).definition,
      statements: roleStatements(machine!.view, at(machine!.resource, 'Properties', 'RoleArn')),
    };
  }

  it('the recipe-run machine waits for a handed query in athena:startQueryExecution.sync, then calls its worker again', () => {
    const { definition } = machineOf(withAthena, recipeRunJob.name);
    const choice = stateOf(definition, 'AwaitsQuery');
    expect(at(stateOf(definition, 'Work'), 'Next')).toBe('AwaitsQuery');
    expect(JSON.stringify(at(choice, 'Choices'))).toContain('"Variable":"$.result.output.athena_query"');
    expect(at(choice, 'Default')).toBe('Done');
    const query = stateOf(definition, 'RunQuery');
    expect(query).toMatchObject({
      Type: 'Task',
      Resource: ATHENA_START_QUERY_SYNC,
      Parameters: {
        'QueryString.$': '$.result.output.athena_query.query_string',
        'WorkGroup.$': '$.result.output.athena_query.workgroup',
        QueryExecutionContext: { Catalog: 'AwsDataCatalog', 'Database.$': '$.result.output.athena_query.database' },
      },
      ResultPath: '$.sync',
      TimeoutSeconds: ATHENA_QUERY_TIMEOUT_SECONDS,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.sync', Next: 'Work' }],
      Next: 'Work',
    });
    // The other engine job's machine hands nothing over.
    expect(JSON.stringify(machineOf(withAthena, nodeSchemaAnalysisJob.name).definition)).not.toContain(
      ATHENA_START_QUERY_SYNC,
    );
  });

  it('its role may start, follow and stop queries in the stage’s workgroups only, and write only under the runs’ Athena folders', () => {
    const { statements } = machineOf(withAthena, recipeRunJob.name);
    const byAction = new Map<string, string[]>();
    for (const statement of statements)
      for (const action of actionsOfStatement(statement))
        byAction.set(action, [
          ...(byAction.get(action) ?? []),
          ...asList(statement.Resource).map((r) => JSON.stringify(r)),
        ]);
    const athena = [...byAction.keys()].filter((action) => /^(athena|glue):/.test(action)).sort();
    expect(athena).toEqual([
      'athena:GetQueryExecution',
      'athena:StartQueryExecution',
      'athena:StopQueryExecution',
      'glue:CreateTable',
      'glue:GetDatabase',
      'glue:GetTable',
    ]);
    for (const action of athena.filter((name) => name.startsWith('athena:'))) {
      expect(byAction.get(action), action).toHaveLength(1);
      expect(byAction.get(action)![0], action).toContain(':workgroup/dps-athena-*');
    }
    for (const action of athena.filter((name) => name.startsWith('glue:')))
      for (const resource of byAction.get(action)!.slice(1)) expect(resource, action).toContain('dps_athena_*');
    for (const action of ['s3:PutObject', 's3:AbortMultipartUpload']) {
      const resources = byAction.get(action)!;
      expect(resources, action).toHaveLength(2);
      expect(resources.join(' '), action).toContain('/*/athena/*');
      expect(resources.join(' '), action).toContain('/*/athena-results/*');
    }
    expect(byAction.has('s3:DeleteObject')).toBe(false);
    for (const action of byAction.keys()) expect(action).not.toMatch(/^athena:(Create|Update|Delete|Tag)/);
    // No Athena on a stage without it.
    expect(
      machineOf(withoutAthena, recipeRunJob.name)
        .statements.flatMap(actionsOfStatement)
        .filter((action) => /^(athena|glue):/.test(action)),
    ).toEqual([]);
  });

  it('lets the engine tasks reach Athena and Glue through VPC endpoints on a stage with Athena only', () => {
    // ServiceName is com.amazonaws.<region>.<service>, joined from the region's reference.
    const endpoints = (stage: SynthesizedStage) =>
      allResourcesOfType(stage, 'AWS::EC2::VPCEndpoint')
        .map(({ resource }) => JSON.stringify(at(resource, 'Properties', 'ServiceName')))
        .filter((name) => name.includes('".athena"') || name.includes('".glue"'));
    expect(endpoints(withAthena)).toHaveLength(2);
    expect(endpoints(withoutAthena)).toEqual([]);
  });

  it('passes cdk-nag', () => {
    expect(awsSolutionsReport(withAthena).violations).toEqual([]);
  });
});
