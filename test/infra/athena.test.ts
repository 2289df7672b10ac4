/**
 * trino-sql runs as deployed (docs/recipe-languages.md): on a stage that names its Athena
 * workgroups, the recipe-run worker may use exactly the stage's per-tenant workgroups
 * (`<ATHENA_WORKGROUP_PREFIX>*`), Glue catalogue, databases (`<ATHENA_DATABASE_PREFIX>*`) and
 * their tables, with the actions the run makes; no other worker touches Athena or Glue; a stage
 * without Athena grants none; cdk-nag passes with the prefixes' wildcards acknowledged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeSchemaAnalysisJob, recipeRunJob } from '../../shared/datasets/jobs';
import { parseSettings } from '../../infra/stacks/settings';
import {
  actionsOf,
  awsSolutionsReport,
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
    routes: [],
    jobs: JOBS,
    nag: true,
    bundle: false,
    settings: parseSettings({ ATHENA_WORKGROUP_PREFIX: 'dps-athena-', ATHENA_DATABASE_PREFIX: 'dps_athena_' }),
  });
  withoutAthena = synthesize({ stage: 'no-athena', routes: [], jobs: JOBS, bundle: false });
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

  it('passes cdk-nag', () => {
    expect(awsSolutionsReport(withAthena).violations).toEqual([]);
  });
});
