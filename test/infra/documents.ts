/**
 * The documents the infra tests read, as zod schemas: a synthesized CloudFormation template,
 * IAM policy documents, a state machine definition (Amazon States Language) and the policy
 * validation report cdk-nag's checks leave in the cloud assembly. Each names the members the
 * tests look at; every other member is kept, as JSON.
 */
import * as z from 'zod';
import { asList, Json, JsonObject } from './json';

/** A resource of a template: its type, the rest (Properties, DeletionPolicy, ...) as JSON. */
export const CfnResource = z.object({ Type: z.string() }).catchall(Json);
export type CfnResource = z.infer<typeof CfnResource>;

/** A synthesized template (CloudFormation requires Resources). */
export const CfnTemplate = z
  .object({
    Resources: z.record(z.string(), CfnResource),
    Outputs: z.record(z.string(), z.object({ Value: Json }).catchall(Json)).optional(),
  })
  .catchall(Json);
export type CfnTemplate = z.infer<typeof CfnTemplate>;

/** A statement of an IAM policy document; resources may be intrinsics (Ref, Fn::GetAtt, Fn::Join). */
export const PolicyStatement = z
  .object({
    Effect: z.enum(['Allow', 'Deny']),
    Action: z.union([z.string(), z.array(z.string())]).optional(),
    /** One resource or a list of them. */
    Resource: Json.optional(),
    Condition: JsonObject.optional(),
    Sid: z.string().optional(),
  })
  .catchall(Json);
export type PolicyStatement = z.infer<typeof PolicyStatement>;

/** The actions of a statement; an error for one without Action (a NotAction statement), which no test here expects. */
export function actionsOfStatement(statement: PolicyStatement): readonly string[] {
  if (statement.Action === undefined) throw new Error(`statement without Action: ${JSON.stringify(statement)}`);
  return asList(statement.Action);
}

/** An IAM policy document: one statement or a list of them. */
export const PolicyDocument = z
  .object({ Statement: z.union([PolicyStatement, z.array(PolicyStatement)]) })
  .catchall(Json);
export type PolicyDocument = z.infer<typeof PolicyDocument>;

const Retrier = z
  .object({
    ErrorEquals: z.array(z.string()),
    IntervalSeconds: z.number().optional(),
    MaxAttempts: z.number().optional(),
    BackoffRate: z.number().optional(),
    MaxDelaySeconds: z.number().optional(),
    JitterStrategy: z.string().optional(),
  })
  .catchall(Json);

const Catcher = z.object({ ErrorEquals: z.array(z.string()), Next: z.string() }).catchall(Json);

/** A state of a definition, with what the tests read of Task states (the Lambda it invokes, timeouts, Retry, Catch). */
export const AslState = z
  .object({
    Type: z.string(),
    Next: z.string().optional(),
    Parameters: z.object({ FunctionName: z.string().optional() }).catchall(Json).optional(),
    TimeoutSeconds: z.number().optional(),
    HeartbeatSeconds: z.number().optional(),
    Retry: z.array(Retrier).optional(),
    Catch: z.array(Catcher).optional(),
  })
  .catchall(Json);
export type AslState = z.infer<typeof AslState>;

/** A state machine definition (Amazon States Language). */
export const AslDefinition = z
  .object({
    Comment: z.string().optional(),
    StartAt: z.string(),
    TimeoutSeconds: z.number().optional(),
    States: z.record(z.string(), AslState),
  })
  .catchall(Json);
export type AslDefinition = z.infer<typeof AslDefinition>;

/** The state a definition names `name`; an error naming it when there is none. */
export function stateOf(definition: AslDefinition, name: string): AslState {
  const state = definition.States[name];
  if (state === undefined) throw new Error(`no state ${name}; states: ${Object.keys(definition.States).join(', ')}`);
  return state;
}

/** The state `state` goes on to (its Next); an error when it names none or one that does not exist. */
export function nextOf(definition: AslDefinition, state: AslState): AslState {
  if (state.Next === undefined) throw new Error(`state ${JSON.stringify(state)} has no Next`);
  return stateOf(definition, state.Next);
}

const Violation = z
  .object({
    ruleName: z.string(),
    violatingConstructs: z.array(z.object({ constructPath: z.string() }).catchall(Json)),
  })
  .catchall(Json);

/** One plugin's part of the policy validation report (aws-cdk-lib's validation-report.json). */
export const PluginReport = z
  .object({
    pluginName: z.string(),
    conclusion: z.enum(['success', 'failure']),
    violations: z.array(Violation),
    /** The report leaves the list out when nothing was suppressed. */
    suppressedViolations: z.array(Violation).default([]),
  })
  .catchall(Json);
export type PluginReport = z.infer<typeof PluginReport>;

/** The policy validation report (validation-report.json), one part per validation plugin. */
export const ValidationReport = z.object({ pluginReports: z.array(PluginReport) }).catchall(Json);
