/**
 * The retention sweep as deployed (docs/retention.md): its function may touch the table, list
 * and delete the data bucket's objects, and nothing else; the daily rule (a stage setting) and
 * the continuation rule invoke it and only it, and cdk-nag finds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaRoutes } from '../../functions/meta/routes';
import { parseSettings } from '../../infra/stacks/settings';
import { recipeRunJob } from '../../shared/datasets/jobs';
import { SCHEDULER_ACTIONS, SCHEDULER_LIST_ACTION } from '../../infra/stacks/schedule-access';
import { asList, at, maybeAt, stringAt } from './json';
import { actionsOfStatement } from './documents';
import { DYNAMODB_READ, DYNAMODB_WRITE, actionsOnObjects, actionsOnTarget } from './grants';
import {
  actionsOf,
  allResourcesOfType,
  awsSolutionsReport,
  dataBucket,
  functionOf,
  grants,
  propertiesOf,
  roleStatements,
  rootKeys,
  sameTarget,
  SYNTH_TIMEOUT_MS,
  synthesize,
  targetOf,
  type SynthesizedStage,
} from './synth';

const ROUTES = Object.values(metaRoutes);
let stage: SynthesizedStage;

beforeAll(() => {
  // The recipe run is the job the schedules' tick starts: with it, the stage has its Schedules stack too.
  stage = synthesize({ stage: 'retention', routes: ROUTES, jobs: [recipeRunJob], nag: true, bundle: false });
}, SYNTH_TIMEOUT_MS);
afterAll(() => stage?.close());

const rulesOf = (synthesized: SynthesizedStage) =>
  allResourcesOfType(synthesized, 'AWS::Events::Rule').map(({ view, resource }) => {
    const properties = propertiesOf(resource);
    const [target] = (at(properties, 'Targets') as unknown[]).map((entry) => entry as Record<string, unknown>);
    return {
      view,
      schedule: stringAt(properties, 'ScheduleExpression'),
      target: targetOf(view, target?.Arn as never),
      input: maybeAt(target as never, 'Input'),
    };
  });

describe('the retention sweep function', () => {
  it('may read and write the table, list and delete the data bucket objects, and nothing else', () => {
    const sweep = functionOf(stage, 'retention/sweep');
    const bucket = dataBucket(stage);
    const keys = rootKeys(stage);
    const actions = [...actionsOf(sweep)];
    expect(actions.filter((action) => action.startsWith('dynamodb:')).sort()).toEqual(
      ['dynamodb:BatchGetItem', ...DYNAMODB_READ, ...DYNAMODB_WRITE].sort(),
    );
    // The bucket: list it, delete objects; never read or write one.
    expect(actionsOnTarget(sweep, bucket)).toEqual(['s3:ListBucket']);
    expect(actionsOnObjects(sweep, bucket)).toEqual(['s3:DeleteObject']);
    expect(actions.filter((action) => action.startsWith('s3:')).sort()).toEqual(['s3:DeleteObject', 's3:ListBucket']);
    // KMS: the table key through DynamoDB only; no bucket key (deleting needs none), no secrets' or tokens' key.
    const keyGrants = grants(sweep).filter((grant) => grant.action.startsWith('kms:'));
    expect(keyGrants.length).toBeGreaterThan(0);
    for (const grant of keyGrants) expect(sameTarget(grant.target, keys.table), grant.action).toBe(true);
    expect(actionsOnTarget(sweep, keys.bucket)).toEqual([]);
    // And the stage's Scheduler schedules, whose survivors it deletes (the schedules' checks below).
    expect(actions.filter((action) => !/^(dynamodb|s3|kms|logs|scheduler|xray):/.test(action))).toEqual([
      'iam:PassRole',
    ]);
    expect(maybeAt(sweep.properties, 'Timeout')).toBe(900);
  });

  it('is invoked once a day and by the continuation rule, and only they may invoke it', () => {
    const sweep = functionOf(stage, 'retention/sweep');
    // The stage's other rule (the OpenLineage outbox's drain, below) invokes its own function.
    const rules = rulesOf(stage).filter((rule) => rule.view === sweep.view);
    expect(rules.map((rule) => [rule.schedule, rule.input]).sort()).toEqual([
      ['rate(1 day)', undefined],
      ['rate(15 minutes)', JSON.stringify({ continue_only: true })],
    ]);
    for (const rule of rules) expect(rule.target?.logicalId).toBe(sweep.logicalId);
    const permissions = allResourcesOfType(stage, 'AWS::Lambda::Permission')
      .map(({ view, resource }) => ({ view, properties: propertiesOf(resource) }))
      .filter(({ view, properties }) => targetOf(view, at(properties, 'FunctionName'))?.logicalId === sweep.logicalId);
    expect(permissions.map(({ properties }) => stringAt(properties, 'Principal'))).toEqual([
      'events.amazonaws.com',
      'events.amazonaws.com',
    ]);
    for (const { properties } of permissions) expect(maybeAt(properties, 'SourceArn')).toBeDefined();
  });

  it('passes cdk-nag', () => {
    const nag = awsSolutionsReport(stage);
    expect(nag.conclusion).toBe('success');
    expect(nag.violations).toEqual([]);
  });
});

describe('the OpenLineage outbox’s drain (docs/lineage.md)', () => {
  it('runs every minute, its rule invoking it alone, and may use the table and nothing else', () => {
    const drain = functionOf(stage, 'jobs/drain-lineage-outbox');
    const rules = rulesOf(stage).filter((rule) => rule.target?.logicalId === drain.logicalId);
    expect(rules.map((rule) => [rule.schedule, rule.input])).toEqual([['rate(1 minute)', undefined]]);
    expect(rulesOf(stage).filter((rule) => rule.schedule === 'rate(1 minute)')).toHaveLength(1);
    const actions = [...actionsOf(drain)].filter((action) => !/^(kms|logs|xray):/.test(action));
    expect(
      actions.every((action) => action.startsWith('dynamodb:')),
      actions.join(),
    ).toBe(true);
    expect(actions).toEqual(expect.arrayContaining([...DYNAMODB_READ, ...DYNAMODB_WRITE]));
  });
});

describe('schedules of dataset builds (docs/schedules.md)', () => {
  const schedulerRoles = () =>
    allResourcesOfType(stage, 'AWS::IAM::Role').filter(({ resource }) =>
      JSON.stringify(at(propertiesOf(resource), 'AssumeRolePolicyDocument')).includes('scheduler.amazonaws.com'),
    );

  it('has one schedule group for the stage', () => {
    const groups = allResourcesOfType(stage, 'AWS::Scheduler::ScheduleGroup');
    expect(groups.map(({ resource }) => stringAt(propertiesOf(resource), 'Name'))).toEqual([
      'data-preparation-retention',
    ]);
  });

  it('has a role only the Scheduler of this account assumes, which may invoke the tick function and nothing else', () => {
    const tick = functionOf(stage, 'schedules/tick');
    const roles = schedulerRoles();
    expect(roles).toHaveLength(1);
    const [{ view, logicalId, resource }] = roles as [(typeof roles)[number]];
    const properties = propertiesOf(resource);
    expect(stringAt(properties, 'RoleName')).toBe('data-preparation-retention-scheduler');
    const trust = JSON.stringify(at(properties, 'AssumeRolePolicyDocument'));
    expect(trust).toContain('"aws:SourceAccount"');
    expect(asList(at(properties, 'ManagedPolicyArns') ?? [])).toEqual([]);
    const statements = roleStatements(view, { 'Fn::GetAtt': [logicalId, 'Arn'] });
    expect(statements.flatMap((statement) => actionsOfStatement(statement))).toEqual(['lambda:InvokeFunction']);
    const resources = statements.flatMap((statement) => asList(statement.Resource ?? []));
    expect(resources.map((value) => targetOf(view, value)?.logicalId)).toEqual([tick.logicalId]);
    // The tick's name is fixed, so that functions of other stacks name it as their schedules' target.
    expect(stringAt(tick.properties, 'FunctionName')).toBe('data-preparation-retention-schedule-tick');
  });

  it('lets the tick start recipe runs and keep its schedule in step, and the sweep reconcile the group, handing only that role to the Scheduler', () => {
    // Only the sweep's reconciliation lists schedules (ListSchedules takes no resource: *).
    for (const [handler, lists] of [
      ['schedules/tick', false],
      ['retention/sweep', true],
    ] as const) {
      const fn = functionOf(stage, handler);
      const scheduler = grants(fn).filter((grant) => grant.action.startsWith('scheduler:'));
      expect([...new Set(scheduler.map((grant) => grant.action))].sort(), handler).toEqual(
        [...SCHEDULER_ACTIONS, ...(lists ? [SCHEDULER_LIST_ACTION] : [])].sort(),
      );
      for (const grant of scheduler.filter((entry) => entry.action !== SCHEDULER_LIST_ACTION))
        expect(JSON.stringify(grant.resource), handler).toContain(':schedule/data-preparation-retention/*');
      const passRole = grants(fn).filter((grant) => grant.action === 'iam:PassRole');
      expect(
        passRole.map((grant) => JSON.stringify(grant.resource)),
        handler,
      ).toEqual([expect.stringContaining(':role/data-preparation-retention-scheduler')]);
      expect(passRole[0]?.condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
      expect(fn.environment.SCHEDULE_GROUP, handler).toBe('data-preparation-retention');
    }
    const tick = functionOf(stage, 'schedules/tick');
    expect([...actionsOf(tick)].filter((action) => action.startsWith('states:'))).toEqual(['states:StartExecution']);
  });
});

describe('the sweep schedule', () => {
  it('is the stage setting RETENTION_SWEEP_SCHEDULE', () => {
    const custom = synthesize({
      stage: 'nightly',
      routes: ROUTES,
      jobs: [],
      bundle: false,
      settings: { RETENTION_SWEEP_SCHEDULE: 'cron(0 3 * * ? *)' },
    });
    try {
      expect(rulesOf(custom).map((rule) => rule.schedule)).toContain('cron(0 3 * * ? *)');
    } finally {
      custom.close();
    }
  });

  it('refuses a value that is not a schedule expression at synth', () => {
    expect(() => parseSettings({ RETENTION_SWEEP_SCHEDULE: 'daily' })).toThrow(/RETENTION_SWEEP_SCHEDULE/);
    expect(parseSettings({ RETENTION_SWEEP_SCHEDULE: 'rate(6 hours)' })).toEqual({
      RETENTION_SWEEP_SCHEDULE: 'rate(6 hours)',
    });
  });
});
