/**
 * Synthesizes a stage once per test file (bundling every function with esbuild, as `cdk synth`
 * does) into a temporary cloud assembly, and gives the tests a view over the root and nested
 * templates: functions with their effective IAM statements, references followed through
 * nested-stack parameters back to the root stack's resources (template-view.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestedStack, Stack, type App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { DataPreparationStack } from '../../infra/stacks/data-preparation-stack';
import { PROJECT_ROOT } from '../../infra/stacks/service-function';
import { handlerLabel } from '../../shared/http/handler-ref';
import { substitute } from '../../infra/state-machines';
import {
  AslDefinition,
  CfnTemplate,
  PolicyDocument,
  ValidationReport,
  type CfnResource,
  type PluginReport,
  type PolicyStatement,
} from './documents';
import { buildApp, type SynthesizeOptions } from './synth-app';
import { asList, at, maybeAt, objectAt, stringAt, type Json, type JsonObject } from './json';
import {
  objectsTargetOf,
  propertiesOf,
  resourceOf,
  resourcesOfType,
  targetOf,
  type Target,
  type TemplateView,
} from './template-view';

// The template helpers and the app's making are part of what tests import from here.
export * from './synth-app';
export * from './template-view';

export const FIXTURES_DIR = join(PROJECT_ROOT, 'test', 'infra', 'fixtures');

export interface Statement {
  readonly effect: string;
  readonly actions: readonly string[];
  readonly resources: readonly Json[];
  readonly condition: JsonObject | undefined;
  readonly sid: string | undefined;
}

export interface FunctionInfo {
  readonly view: TemplateView;
  readonly logicalId: string;
  readonly properties: JsonObject;
  readonly description: string;
  readonly environment: Readonly<JsonObject>;
  readonly roleLogicalId: string;
  readonly role: CfnResource;
  /** Every statement of the role's inline and attached policies. */
  readonly statements: readonly Statement[];
}

/** A synthesized stage as its templates and cloud assembly (what every check reads). */
export interface SynthesizedTemplates {
  readonly assemblyDir: string;
  readonly root: TemplateView;
  readonly nested: readonly TemplateView[];
  readonly views: readonly TemplateView[];
  readonly functions: readonly FunctionInfo[];
  close(): void;
}

/** A stage synthesized in this process: its templates, and the constructs they came from. */
export interface SynthesizedStage extends SynthesizedTemplates {
  readonly app: App;
  readonly stack: DataPreparationStack;
}

/** A nested stack's template: its construct id, the logical id of its stack resource in the root template, its JSON. */
export interface NestedTemplate {
  readonly name: string;
  readonly logicalId: string;
  readonly json: unknown;
}

/**
 * The hook budget of a synthesis that bundles functions and runs cdk-nag: tens of seconds on an
 * idle 2-core machine, more while the other test files run beside it.
 */
export const SYNTH_TIMEOUT_MS = 180_000;

/**
 * Synthesizes in this process. CDK bundles synchronously, so a synthesis that bundles holds
 * the test process for as long as it lasts: tests that read bundles use synthesizeBundled
 * (synth-bundled.ts), which synthesizes in a child process.
 */
export function synthesize(options: SynthesizeOptions = {}): SynthesizedStage {
  const assemblyDir = mkdtempSync(join(tmpdir(), 'dps-infra-'));
  try {
    const { app, stack } = buildApp(assemblyDir, options);
    const rootJson = Template.fromStack(stack).toJSON();
    const nested = stack.node
      .findAll()
      .filter((construct): construct is NestedStack => NestedStack.isNestedStack(construct))
      .map((nestedStack): NestedTemplate => {
        const resource = nestedStack.nestedStackResource!;
        const logicalId = Stack.of(resource).resolve((resource as CfnElement).logicalId) as string;
        return { name: nestedStack.node.id, logicalId, json: Template.fromStack(nestedStack).toJSON() };
      });
    return { app, stack, ...templatesOf(assemblyDir, stack.artifactId, rootJson, nested) };
  } catch (error) {
    rmSync(assemblyDir, { recursive: true, force: true });
    throw error;
  }
}

/** The views over a root template and its nested stacks' templates. */
export function templatesOf(
  assemblyDir: string,
  rootName: string,
  rootJson: unknown,
  nestedTemplates: readonly NestedTemplate[],
): SynthesizedTemplates {
  const root: TemplateView = {
    name: rootName,
    template: Template.fromJSON(rootJson as Record<string, unknown>),
    json: CfnTemplate.parse(rootJson),
    parent: undefined,
    parameterValues: {},
    children: new Map(),
  };
  const nested = nestedTemplates.map(({ name, logicalId, json }): TemplateView => {
    const view: TemplateView = {
      name,
      template: Template.fromJSON(json as Record<string, unknown>),
      json: CfnTemplate.parse(json),
      parent: root,
      parameterValues: objectAt(at(resourceOf({ view: root, logicalId }), 'Properties', 'Parameters') ?? {}),
      children: new Map(),
    };
    root.children.set(logicalId, view);
    return view;
  });
  const views = [root, ...nested];
  return {
    assemblyDir,
    root,
    nested,
    views,
    functions: views.flatMap(functionsOf),
    close: () => rmSync(assemblyDir, { recursive: true, force: true }),
  };
}

/** Whether an AWS::IAM::Policy is attached to the role with this logical id. */
const attachedTo = (policy: CfnResource, roleLogicalId: string): boolean =>
  asList(at(policy, 'Properties', 'Roles')).some((ref) => maybeAt(ref, 'Ref') === roleLogicalId);

const statementsOf = (document: Json | undefined): readonly PolicyStatement[] =>
  asList(PolicyDocument.parse(document).Statement);

function functionsOf(view: TemplateView): FunctionInfo[] {
  return resourcesOfType(view, 'AWS::Lambda::Function').map(([logicalId, resource]) => {
    const properties = propertiesOf(resource);
    const roleLogicalId = stringAt(properties, 'Role', 'Fn::GetAtt', 0);
    const role = resourceOf({ view, logicalId: roleLogicalId });
    const attached = resourcesOfType(view, 'AWS::IAM::Policy').filter(([, policy]) =>
      attachedTo(policy, roleLogicalId),
    );
    const documents = [
      ...asList(at(role, 'Properties', 'Policies')).map((policy) => at(policy, 'PolicyDocument')),
      ...attached.map(([, policy]) => at(policy, 'Properties', 'PolicyDocument')),
    ];
    const statements = documents.flatMap(statementsOf).map((statement): Statement => ({
      effect: statement.Effect,
      actions: asList(statement.Action),
      resources: asList(statement.Resource),
      condition: statement.Condition,
      sid: statement.Sid,
    }));
    const variables = maybeAt(properties, 'Environment', 'Variables');
    return {
      view,
      logicalId,
      properties,
      description: properties.Description === undefined ? '' : stringAt(properties, 'Description'),
      environment: variables === undefined ? {} : objectAt(variables),
      roleLogicalId,
      role,
      statements,
    };
  });
}

/** The one function whose description names its handler (handlerLabel: functions/<module>.ts[#export]) and matches `where`. */
export function functionOf(
  synthesized: SynthesizedTemplates,
  handler: string,
  where: (fn: FunctionInfo) => boolean = () => true,
): FunctionInfo {
  const found = synthesized.functions.filter((fn) => fn.description.includes(`${handlerLabel(handler)})`) && where(fn));
  if (found.length !== 1) throw new Error(`expected one function for ${handler}, found ${found.length}`);
  return found[0]!;
}

export interface Grant {
  readonly action: string;
  readonly resource: Json;
  /** The resource the grant names, or undefined for `<arn>/*` (see objectsOf) and literals. */
  readonly target: Target | undefined;
  /** For `<arn>/*`: the resource whose objects (S3 keys) the grant names. */
  readonly objectsOf: Target | undefined;
  readonly condition: JsonObject | undefined;
}

/** Allowed actions of a function, each with the resources it applies to. */
export function grants(fn: FunctionInfo): Grant[] {
  return fn.statements
    .filter((statement) => statement.effect === 'Allow')
    .flatMap((statement) =>
      statement.actions.flatMap((action) =>
        statement.resources.map((resource) => ({
          action,
          resource,
          target: targetOf(fn.view, resource),
          objectsOf: objectsTargetOf(fn.view, resource),
          condition: statement.condition,
        })),
      ),
    );
}

export function actionsOf(fn: FunctionInfo): Set<string> {
  return new Set(grants(fn).map((grant) => grant.action));
}

/** The root stack's KMS keys, told apart by what uses them. */
export function rootKeys(synthesized: SynthesizedTemplates): {
  table: Target;
  bucket: Target;
  data: Target;
  signing: Target;
} {
  const { root } = synthesized;
  const keys = resourcesOfType(root, 'AWS::KMS::Key');
  const tables = resourcesOfType(root, 'AWS::DynamoDB::Table');
  if (tables.length !== 1) throw new Error(`expected one table, found ${tables.length}`);
  const table = tables[0]![1];
  const tableKey = targetOf(root, at(table, 'Properties', 'SSESpecification', 'KMSMasterKeyId'))!;
  const bucketKeys = resourcesOfType(root, 'AWS::S3::Bucket')
    .map(([, bucket]) =>
      maybeAt(
        propertiesOf(bucket),
        'BucketEncryption',
        'ServerSideEncryptionConfiguration',
        0,
        'ServerSideEncryptionByDefault',
        'KMSMasterKeyID',
      ),
    )
    .filter((key) => key !== undefined)
    .map((key) => targetOf(root, key)!);
  if (bucketKeys.length !== 1) throw new Error(`expected one KMS-encrypted bucket, found ${bucketKeys.length}`);
  const signing = keys.filter(([, key]) => at(key, 'Properties', 'KeySpec') === 'ECC_NIST_P256');
  if (signing.length !== 1) throw new Error('expected one ECC_NIST_P256 key');
  const signingKey: Target = { view: root, logicalId: signing[0]![0], attribute: undefined };
  // The alarm topic's key (infra/stacks/monitoring.ts) encrypts notifications, no data.
  const topicKeys = resourcesOfType(root, 'AWS::SNS::Topic').flatMap(
    ([, topic]) => targetOf(root, maybeAt(propertiesOf(topic), 'KmsMasterKeyId'))?.logicalId ?? [],
  );
  const used = new Set([tableKey.logicalId, bucketKeys[0]!.logicalId, signingKey.logicalId, ...topicKeys]);
  const others = keys.filter(([logicalId]) => !used.has(logicalId));
  if (others.length !== 1) throw new Error(`expected exactly one more key (the data key), found ${others.length}`);
  return {
    table: tableKey,
    bucket: bucketKeys[0]!,
    data: { view: root, logicalId: others[0]![0], attribute: undefined },
    signing: signingKey,
  };
}

/** The root stack's KMS-encrypted bucket: the data bucket. */
export function dataBucket(synthesized: SynthesizedTemplates): Target {
  const encrypted = resourcesOfType(synthesized.root, 'AWS::S3::Bucket').filter(([, bucket]) =>
    JSON.stringify(at(bucket, 'Properties', 'BucketEncryption') ?? {}).includes('aws:kms'),
  );
  if (encrypted.length !== 1) throw new Error(`expected one KMS-encrypted bucket, found ${encrypted.length}`);
  return { view: synthesized.root, logicalId: encrypted[0]![0], attribute: undefined };
}

/** A job worker (functions/jobs.ts) by name, from its description. */
export function workerOf(synthesized: SynthesizedTemplates, name: string): FunctionInfo {
  const found = synthesized.functions.filter((fn) => fn.description.startsWith(`worker ${name} (`));
  if (found.length !== 1) throw new Error(`expected one worker ${name}, found ${found.length}`);
  return found[0]!;
}

/** The directory of a zipped asset (a bundle, a layer) in the cloud assembly, by its S3 key. */
export function assetDir(synthesized: SynthesizedTemplates, s3Key: string): string {
  return join(synthesized.assemblyDir, `asset.${s3Key.replace(/\.zip$/, '')}`);
}

/** The directory of a function's bundle in the cloud assembly. */
export function bundleDir(synthesized: SynthesizedTemplates, fn: FunctionInfo): string {
  return assetDir(synthesized, stringAt(fn.properties, 'Code', 'S3Key'));
}

/** Stands for a function's ARN in a deployed definition (see deployedDefinition). */
export function functionMarker(fn: Pick<FunctionInfo, 'logicalId'>): string {
  return `arn:aws:lambda:region:account:function:${fn.logicalId}`;
}

/**
 * What CloudFormation deploys for a state machine: the uploaded definition with its
 * DefinitionSubstitutions applied, each reference replaced by functionMarker of its target.
 */
export function deployedDefinition(
  synthesized: SynthesizedTemplates,
  machine: { view: TemplateView; resource: CfnResource },
): { text: string; definition: AslDefinition } {
  const substitutions = Object.entries(objectAt(machine.resource, 'Properties', 'DefinitionSubstitutions')).map(
    ([key, value]) => {
      const target = targetOf(machine.view, value);
      if (target === undefined) throw new Error(`substitution ${key} names no resource`);
      return [key, functionMarker(target)] as const;
    },
  );
  // Definitions are rendered per job and embedded (DefinitionString); an uploaded file is read back.
  const raw =
    at(machine.resource, 'Properties', 'DefinitionString') ??
    fileAsset(synthesized, stringAt(machine.resource, 'Properties', 'DefinitionS3Location', 'Key'));
  const text = substitute(String(raw), Object.fromEntries(substitutions));
  return { text, definition: AslDefinition.parse(JSON.parse(text)) };
}

/** Statements of the policies attached to the role a RoleArn value names. */
export function roleStatements(view: TemplateView, roleArn: Json | undefined): PolicyStatement[] {
  const roleId = targetOf(view, roleArn)!.logicalId;
  return resourcesOfType(view, 'AWS::IAM::Policy')
    .filter(([, policy]) => attachedTo(policy, roleId))
    .flatMap(([, policy]) => statementsOf(at(policy, 'Properties', 'PolicyDocument')));
}

/** The text of a file asset (e.g. a state machine definition uploaded with DefinitionBody.fromFile). */
export function fileAsset(synthesized: SynthesizedTemplates, s3Key: string): string {
  return readFileSync(join(synthesized.assemblyDir, `asset.${s3Key}`), 'utf8');
}

/** The AWS Solutions checks' part of the validation report synthesis leaves in the cloud assembly (synthesize with nag). */
export function awsSolutionsReport(synthesized: SynthesizedTemplates): PluginReport {
  const report = ValidationReport.parse(
    JSON.parse(readFileSync(join(synthesized.assemblyDir, 'validation-report.json'), 'utf8')),
  );
  const nag = report.pluginReports.find((plugin) => plugin.pluginName === 'AwsSolutions');
  if (nag === undefined)
    throw new Error(
      `the validation report has no AwsSolutions part: ${report.pluginReports.map((plugin) => plugin.pluginName).join(', ')}`,
    );
  return nag;
}
