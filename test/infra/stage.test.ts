/**
 * Stages: names, validation, one stack per stage, settings. These tests check names and wiring
 * only, so they synthesize without bundling (CDK's aws:cdk:bundling-stacks context, as
 * `cdk synth --exclusively` uses it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataPreparationStack } from '../../infra/stacks/data-preparation-stack';
import { parseSettings } from '../../infra/stacks/settings';
import { routes } from '../../functions/routes';
import { pascalCase, stackName, validateStage } from '../../infra/stacks/stage';
import { CfnTemplate } from './documents';
import { stringAt } from './json';
import { removeScratchApps, resourcesOfType, scratchApp, synthesize, type SynthesizedStage } from './synth';

afterAll(removeScratchApps);

describe('stage names', () => {
  it.each(['dev', 'prod', 'acme-prod', 'pr-1234', '01', 'a'.repeat(32)])('accepts %s', (stage) => {
    expect(validateStage(stage)).toBe(stage);
  });

  it.each([undefined, '', 'Dev', 'dev_1', 'dev.1', '-dev', 'dev-', 'a--b', 'dev 1', 'a'.repeat(33), 42])(
    'rejects %s',
    (stage) => {
      expect(() => validateStage(stage)).toThrow(
        stage === undefined || stage === '' ? /no stage given.*-c stage=/ : /invalid stage/,
      );
    },
  );

  it('a stage has the stack DataPreparation-<stage>', () => {
    expect(stackName('acme-prod')).toBe('DataPreparation-acme-prod');
    expect(() => stackName('Acme')).toThrow(/invalid stage/);
  });

  it('the stack refuses an invalid stage', () => {
    expect(() => new DataPreparationStack(scratchApp(), 'DataPreparation-x', { stage: 'Bad_Stage' })).toThrow(
      /invalid stage/,
    );
  });
});

describe('settings', () => {
  it('accepts known settings as strings, numbers or lists', () => {
    expect(parseSettings(undefined)).toEqual({});
    expect(
      parseSettings({
        TOKEN_TTL_SECONDS: 600,
        OUTBOUND_ALLOW_LIST: ['10.0.0.0/8', 'db.internal:5432'],
        TOKEN_ISSUER: 'acme',
      }),
    ).toEqual({
      TOKEN_TTL_SECONDS: '600',
      OUTBOUND_ALLOW_LIST: '10.0.0.0/8,db.internal:5432',
      TOKEN_ISSUER: 'acme',
    });
    expect(parseSettings('{"MAX_BODY_BYTES": 1024}')).toEqual({ MAX_BODY_BYTES: '1024' });
  });

  it('refuses unknown settings and resource names', () => {
    expect(() => parseSettings({ TABLE_NAME: 'x' })).toThrow(/unknown setting TABLE_NAME/);
    expect(() => parseSettings(['TOKEN_TTL_SECONDS'])).toThrow(/must be an object/);
    expect(() => parseSettings({ TOKEN_TTL_SECONDS: { value: 1 } })).toThrow(/must be a string/);
  });
});

describe('one stack per stage', () => {
  let stage: SynthesizedStage;
  beforeAll(() => {
    stage = synthesize({
      stage: 'acme-qa',
      bundle: false,
      settings: { TOKEN_TTL_SECONDS: '600', OUTBOUND_ALLOW_LIST: '10.1.2.3:443' },
    });
  });
  afterAll(() => stage?.close());

  it('is named per stage', () => {
    expect(stage.stack.stackName).toBe('DataPreparation-acme-qa');
    expect(stage.app.synth().getStackByName('DataPreparation-acme-qa').stackName).toBe('DataPreparation-acme-qa');
    expect(stage.stack.terminationProtection).toBe(false);
  });

  it('names and tags its resources with the stage', () => {
    stage.root.template.hasResourceProperties('AWS::ApiGatewayV2::Api', { Name: 'data-preparation-acme-qa' });
    const aliases = resourcesOfType(stage.root, 'AWS::KMS::Alias').map(([, alias]) =>
      stringAt(alias, 'Properties', 'AliasName'),
    );
    // The table's, the data's, the signing and the bucket's keys, and the alarm topic's (infra/stacks/monitoring.ts).
    expect(aliases.length).toBe(5);
    for (const alias of aliases) expect(alias).toMatch(/^alias\/data-preparation\/acme-qa\//);
    stage.root.template.hasResourceProperties('AWS::DynamoDB::Table', {
      Tags: [
        { Key: 'service', Value: 'data-preparation' },
        { Key: 'stage', Value: 'acme-qa' },
      ],
    });
  });

  it('nests a stack per route domain, one for jobs, one for the retention sweep and one for schedules', () => {
    const domains = [...new Set(routes.map((route) => `${pascalCase(route.tag)}Routes`))];
    expect(stage.nested.map((view) => view.name).sort()).toEqual([...domains, 'Jobs', 'Retention', 'Schedules'].sort());
    expect(Object.keys(stage.root.template.findResources('AWS::CloudFormation::Stack'))).toHaveLength(
      domains.length + 3,
    );
    for (const view of stage.views) expect(Object.keys(view.json.Resources).length).toBeLessThan(500);
  });

  it('has no jobs stack without jobs', () => {
    const app = scratchApp({ bundle: false });
    const stack = new DataPreparationStack(app, stackName('bare'), {
      stage: 'bare',
      routes: routes.filter((route) => route.tag === 'meta'),
      jobs: [],
    });
    expect(stack.jobs).toBeUndefined();
  });

  it('passes settings to every function', () => {
    expect(stage.functions.length).toBeGreaterThan(0);
    for (const fn of stage.functions) {
      expect(fn.environment.TOKEN_TTL_SECONDS, fn.description).toBe('600');
      expect(fn.environment.OUTBOUND_ALLOW_LIST, fn.description).toBe('10.1.2.3:443');
    }
  });

  it('two stages in one app are independent stacks; prod is protected from deletion', () => {
    const app = scratchApp({ bundle: false });
    const qa = new DataPreparationStack(app, stackName('qa'), { stage: 'qa' });
    const prod = new DataPreparationStack(app, stackName('prod'), { stage: 'prod' });
    const assembly = app.synth();
    expect(assembly.stacks.map((stack) => stack.stackName).sort()).toEqual([
      'DataPreparation-prod',
      'DataPreparation-qa',
    ]);
    expect(prod.terminationProtection).toBe(true);
    expect(qa.terminationProtection).toBe(false);
    // Read from the one assembly: Template.fromStack synthesizes the whole app again at each call.
    const aliases = (stack: DataPreparationStack) =>
      Object.values(CfnTemplate.parse(assembly.getStackByName(stack.stackName).template).Resources)
        .filter((resource) => resource.Type === 'AWS::KMS::Alias')
        .map((alias) => stringAt(alias, 'Properties', 'AliasName'));
    const prodAliases = aliases(prod);
    expect(prodAliases).toHaveLength(5);
    expect(aliases(qa).filter((alias) => prodAliases.includes(alias))).toEqual([]);
  });
});
