/**
 * CDK's built-in CloudFormation validation (cfn-lint's rules), as the test syntheses use it: off
 * unless asked for, since it costs half of a synthesis, and, when asked for, an error fails the
 * synthesis instead of being reported. api.test.ts asks for it over the whole stage.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnResource, Stack } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { removeScratchApps, scratchApp } from './synth';

afterAll(() => removeScratchApps());

/** An app with one queue whose visibility timeout is text, which CloudFormation refuses. */
function appWithWrongQueue(cloudFormationRules: boolean) {
  const app = scratchApp({ bundle: false, cloudFormationRules });
  new CfnResource(new Stack(app, 'Wrong'), 'Queue', {
    type: 'AWS::SQS::Queue',
    properties: { VisibilityTimeout: 'soon' },
  });
  return app;
}

describe("CloudFormation's rules in a test synthesis", () => {
  it('fail it on an error when asked for, and the report names the property', () => {
    const app = appWithWrongQueue(true);
    expect(() => app.synth()).toThrow(/Validation failed|CloudFormation Validate/);
    const report = readFileSync(join(app.outdir, 'validation-report.json'), 'utf8');
    expect(report).toContain("VisibilityTimeout: 'soon' is not of type 'integer'");
  });

  it('are left out otherwise', () => {
    expect(() => appWithWrongQueue(false).synth()).not.toThrow();
  });
});
