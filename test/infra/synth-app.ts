/**
 * The CDK app a test synthesizes: cdk.json's context and feature flags, as the CLI gives them,
 * with the stacks to bundle, cdk-nag's checks and CloudFormation's rules as the test asks.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { BUNDLING_STACKS, VALIDATE_AGAINST_DEFAULT_RULES } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DataPreparationStack, type DataPreparationStackProps } from '../../infra/stacks/data-preparation-stack';
import { PROJECT_ROOT } from '../../infra/stacks/service-function';
import { stackName } from '../../infra/stacks/stage';

/** The feature flags and settings of cdk.json, so tests synthesize what the CLI synthesizes. */
export const CDK_CONTEXT = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

export interface SynthesizeOptions extends Partial<DataPreparationStackProps> {
  /** Run cdk-nag's AWS Solutions checks (synthesis throws on an unacknowledged finding). */
  readonly nag?: boolean;
  /**
   * Bundle the functions (default); tests of names and wiring only may skip it, and tests that
   * read a few bundles name the stacks to bundle (their construct paths, e.g.
   * `DataPreparation-test/DataTablesRoutes`): bundling every function takes minutes.
   */
  readonly bundle?: boolean | readonly string[];
  /**
   * Run CDK's built-in CloudFormation validation (cfn-lint's rules, compiled to WebAssembly) and
   * fail the synthesis on any error it finds (`@aws-cdk/core:validateAgainstDefaultRules`; by
   * default CDK only reports them). It costs about 2.5 s of CPU per synthesis, half of one, so it
   * runs over the whole stage once (api.test.ts) and the other syntheses leave it out.
   */
  readonly cloudFormationRules?: boolean;
}

/** The app and the stage's stack, with the options' context and checks, synthesizing into `assemblyDir`. */
export function buildApp(assemblyDir: string, options: SynthesizeOptions): { app: App; stack: DataPreparationStack } {
  const { nag = false, bundle = true, cloudFormationRules = false, ...props } = options;
  const stage = props.stage ?? 'test';
  const app = new App({
    outdir: assemblyDir,
    context: appContext(bundle, cloudFormationRules),
    analyticsReporting: false,
    builtinCloudFormationValidation: cloudFormationRules,
  });
  const stack = new DataPreparationStack(app, stackName(stage), { ...props, stage });
  if (nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

/** cdk.json's context, with the stacks to bundle and CloudFormation's rules failing the synthesis when asked. */
function appContext(bundle: boolean | readonly string[], cloudFormationRules: boolean): Record<string, unknown> {
  return {
    ...CDK_CONTEXT,
    ...(bundle === true ? {} : { [BUNDLING_STACKS]: bundle === false ? [] : bundle }),
    ...(cloudFormationRules ? { [VALIDATE_AGAINST_DEFAULT_RULES]: true } : {}),
  };
}

const scratchDirs: string[] = [];

/** An app for a test that builds stacks itself, in a temporary directory (see removeScratchApps). */
export function scratchApp(options: Pick<SynthesizeOptions, 'cloudFormationRules'> & { bundle?: boolean } = {}): App {
  const outdir = mkdtempSync(join(tmpdir(), 'dps-infra-'));
  scratchDirs.push(outdir);
  const { bundle = true, cloudFormationRules = false } = options;
  return new App({
    outdir,
    context: appContext(bundle, cloudFormationRules),
    analyticsReporting: false,
    builtinCloudFormationValidation: cloudFormationRules,
  });
}

export function removeScratchApps(): void {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
