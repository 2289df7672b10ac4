/**
 * The CDK app: one stack per stage.
 *
 *   npx cdk synth -c stage=dev          (offline, no Docker: esbuild bundles locally)
 *   npx cdk deploy -c stage=acme-prod
 *
 * Optional context "settings" overrides service settings for every function (settings.ts), and
 * "memory" the functions' memory sizes (memory.ts), and "alarms" the alarms' thresholds
 * (alarm-thresholds.ts).
 * cdk-nag's AWS Solutions checks run on every synth; a finding fails it unless the construct
 * acknowledges the rule with a reason.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DataPreparationStack } from '../stacks/data-preparation-stack';
import { parseSettings } from '../stacks/settings';
import { stackName, validateStage } from '../stacks/stage';

const app = new App();
const stage = validateStage(app.node.tryGetContext('stage'));
new DataPreparationStack(app, stackName(stage), {
  stage,
  settings: parseSettings(app.node.tryGetContext('settings')),
  memory: app.node.tryGetContext('memory'),
  alarms: app.node.tryGetContext('alarms'),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
