/**
 * The retention sweep as deployed (docs/retention.md): its function may touch the table, list
 * and delete the data bucket's objects, and nothing else; the daily rule (a stage setting) and
 * the continuation rule invoke it and only it, and cdk-nag finds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaRoutes } from '../../functions/meta/routes';
import { parseSettings } from '../../infra/stacks/settings';
import { at, maybeAt, stringAt } from './json';
import { DYNAMODB_READ, DYNAMODB_WRITE, actionsOnObjects, actionsOnTarget } from './grants';
import {
  actionsOf,
  allResourcesOfType,
  awsSolutionsReport,
  dataBucket,
  functionOf,
  grants,
  propertiesOf,
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
  stage = synthesize({ stage: 'retention', routes: ROUTES, jobs: [], nag: true, bundle: false });
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
    expect(actions.filter((action) => !/^(dynamodb|s3|kms|logs):/.test(action))).toEqual([]);
    expect(maybeAt(sweep.properties, 'Timeout')).toBe(900);
  });

  it('is invoked once a day and by the continuation rule, and only they may invoke it', () => {
    const sweep = functionOf(stage, 'retention/sweep');
    const rules = rulesOf(stage);
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
