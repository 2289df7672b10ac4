/**
 * Stages: one CloudFormation stack per stage (`cdk synth -c stage=<name>`), e.g. a tenant's
 * dedicated deployment, a developer's sandbox or `prod`. The name ends up in the stack name and
 * in resource names and tags, so it is restricted to what all of those accept.
 */

/** Lowercase letters and digits in hyphen-separated groups, at most 32 characters. */
const STAGE_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const STAGE_MAX_LENGTH = 32;

export function validateStage(stage: unknown): string {
  if (stage === undefined || stage === null || stage === '') {
    throw new Error('no stage given: pass the stage as CDK context, e.g. `npx cdk synth -c stage=dev`');
  }
  if (typeof stage !== 'string' || !STAGE_PATTERN.test(stage) || stage.length > STAGE_MAX_LENGTH) {
    throw new Error(
      `invalid stage ${JSON.stringify(stage)}: use lowercase letters, digits and single hyphens (not at either end), at most ${STAGE_MAX_LENGTH} characters`,
    );
  }
  return stage;
}

/** The CloudFormation stack (and construct id) of a stage. */
export function stackName(stage: string): string {
  return `DataPreparation-${validateStage(stage)}`;
}

/** kebab-case or camelCase → PascalCase, for construct ids. */
export function pascalCase(name: string): string {
  return name.replace(/(^|[-_/\s]+)([a-zA-Z0-9])/g, (_, __, letter: string) => letter.toUpperCase());
}
