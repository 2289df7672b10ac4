/**
 * trino-sql runs as deployed (docs/recipe-languages.md, docs/decisions.md "Per-tenant roles of
 * trino-sql runs"): on a stage that names its Athena workgroups, every Athena and Glue call of a
 * run is made with the tenant's own role. The recipe-run worker may make roles under the
 * stage's path only with the stage's permissions boundary (a managed policy of the stage-wide
 * rights: workgroups `<ATHENA_WORKGROUP_PREFIX>*`, databases `<ATHENA_DATABASE_PREFIX>*`, writes
 * under the runs' Athena folders), read and assume them, and has no Athena or Glue right of its
 * own; the recipe-run machine waits for a trino node's query (`athena:startQueryExecution.sync`,
 * infra/athena-branch.ts) with the handoff's role as the state's Credentials, and its own role
 * may only assume those roles. No other worker touches Athena or Glue; a stage without Athena
 * grants none; cdk-nag passes with the wildcards acknowledged.
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
  const ROLES = ':role/dps-athena-tenant-roles/*';
  const BOUNDARY = ':policy/dps-athena-tenant-roles/dps-athena-tenant-role-boundary';

  it('gives the recipe-run worker no Athena or Glue right: it makes, reads and assumes tenant roles under the stage’s path, with the boundary', () => {
    const worker = functionOf(withAthena, 'jobs/run-recipe');
    expect(athenaOrGlue(withAthena, 'jobs/run-recipe')).toEqual([]);
    const byAction = new Map(
      grants(worker)
        .filter((grant) => /^(iam|sts):/.test(grant.action))
        .map((grant) => [grant.action, grant] as const),
    );
    expect([...byAction.keys()].sort()).toEqual([
      'iam:CreateRole',
      'iam:GetRole',
      'iam:GetRolePolicy',
      'iam:PutRolePolicy',
      'iam:UpdateAssumeRolePolicy',
      'sts:AssumeRole',
    ]);
    for (const [action, grant] of byAction) expect(JSON.stringify(grant.resource), action).toContain(ROLES);
    // A role it writes carries the stage's boundary, or IAM refuses the write.
    for (const action of ['iam:CreateRole', 'iam:PutRolePolicy']) {
      const condition = JSON.stringify(byAction.get(action)!.condition);
      expect(condition, action).toContain('"StringEquals":{"iam:PermissionsBoundary"');
      expect(condition, action).toContain(BOUNDARY);
    }
    for (const action of ['iam:PassRole', 'iam:AttachRolePolicy', 'iam:DeleteRolePermissionsBoundary'])
      expect(byAction.has(action), action).toBe(false);
    // The roles it makes trust it and the machine, and carry the boundary (config.athenaTenantRoles).
    expect(JSON.stringify(worker.environment.ATHENA_ROLE_BOUNDARY_ARN)).toContain(BOUNDARY);
    const trusted = JSON.stringify(worker.environment.ATHENA_ROLE_TRUSTS);
    expect(trusted).toContain(worker.roleLogicalId);
    expect(trusted).toMatch(/RecipeRunStateMachineRole/);
  });

  it('bounds the tenant roles by a managed policy of the stage-wide rights of trino-sql runs', () => {
    const boundaries = allResourcesOfType(withAthena, 'AWS::IAM::ManagedPolicy').filter(
      ({ resource }) => at(resource, 'Properties', 'ManagedPolicyName') === 'dps-athena-tenant-role-boundary',
    );
    expect(boundaries).toHaveLength(1);
    const properties = boundaries[0]!.resource.Properties;
    expect(at(properties, 'Path')).toBe('/dps-athena-tenant-roles/');
    const byAction = new Map<string, string>();
    for (const statement of asList(at(properties, 'PolicyDocument', 'Statement')))
      for (const action of asList(at(statement, 'Action')))
        byAction.set(String(action), JSON.stringify(at(statement, 'Resource')));
    expect([...byAction.keys()].filter((action) => /^(athena|glue):/.test(action)).sort()).toEqual([
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
    expect(byAction.get('athena:StartQueryExecution')).toContain(':workgroup/dps-athena-*');
    expect(byAction.get('glue:GetTable')).toContain(':table/dps_athena_*/*');
    expect(byAction.get('s3:PutObject')).toContain('/*/athena/*');
    expect(byAction.get('s3:PutObject')).toContain('/*/athena-results/*');
    for (const action of byAction.keys()) expect(action).not.toMatch(/^(iam|sts):|^s3:Delete/);
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
      Credentials: { 'RoleArn.$': '$.result.output.athena_query.role_arn' },
      ResultPath: '$.sync',
      TimeoutSeconds: ATHENA_QUERY_TIMEOUT_SECONDS,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.sync', Next: 'Work' }],
      Next: 'Work',
    });
    // Only Athena's throttling and hiccups are retried: a failed or cut-off query (States.TaskFailed)
    // goes back to the worker and never runs again (docs/decisions.md, "Trino builds never run on a Fargate task").
    const retried = (query.Retry ?? []).flatMap((retrier) => retrier.ErrorEquals);
    expect(retried.sort()).toEqual(['Athena.InternalServerException', 'Athena.TooManyRequestsException']);
    // The other engine job's machine hands nothing over.
    expect(JSON.stringify(machineOf(withAthena, nodeSchemaAnalysisJob.name).definition)).not.toContain(
      ATHENA_START_QUERY_SYNC,
    );
  });

  it('its role may only assume the stage’s tenant roles: no Athena, Glue or S3 right of its own', () => {
    const { statements } = machineOf(withAthena, recipeRunJob.name);
    const byAction = new Map<string, string[]>();
    for (const statement of statements)
      for (const action of actionsOfStatement(statement))
        byAction.set(action, [
          ...(byAction.get(action) ?? []),
          ...asList(statement.Resource).map((r) => JSON.stringify(r)),
        ]);
    expect([...byAction.keys()].filter((action) => /^(athena|glue|s3|kms):/.test(action))).toEqual([]);
    expect(byAction.get('sts:AssumeRole')).toHaveLength(1);
    expect(byAction.get('sts:AssumeRole')![0]).toContain(ROLES);
    // Its PassRole is the Fargate branch's (the engine tasks' roles), never a tenant role's.
    for (const [action, resources] of byAction)
      if (action !== 'sts:AssumeRole') expect(resources.join(' '), action).not.toContain('tenant-roles');
    // No Athena on a stage without it.
    expect(
      machineOf(withoutAthena, recipeRunJob.name)
        .statements.flatMap(actionsOfStatement)
        .filter((action) => /^(athena|glue|sts):/.test(action)),
    ).toEqual([]);
  });

  it('gives the engine tasks no Athena or Glue endpoint: a run with a trino-sql node never runs on a task', () => {
    // ServiceName is com.amazonaws.<region>.<service>, joined from the region's reference.
    const endpoints = (stage: SynthesizedStage) =>
      allResourcesOfType(stage, 'AWS::EC2::VPCEndpoint').map(({ resource }) =>
        JSON.stringify(at(resource, 'Properties', 'ServiceName')),
      );
    // The engine VPC is there (its S3 endpoint), without Athena's or Glue's.
    expect(endpoints(withAthena).some((name) => name.includes('.s3'))).toBe(true);
    for (const stage of [withAthena, withoutAthena])
      expect(endpoints(stage).filter((name) => name.includes('".athena"') || name.includes('".glue"'))).toEqual([]);
  });

  it('passes cdk-nag', () => {
    expect(awsSolutionsReport(withAthena).violations).toEqual([]);
  });
});
