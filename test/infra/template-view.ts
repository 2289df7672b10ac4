/**
 * Views over synthesized CloudFormation templates (one per stack, nested stacks linked to their
 * parent) and the references between them: Ref and Fn::GetAtt followed through nested-stack
 * parameters and outputs to the resource they name, and resources by id and type. synth.ts
 * builds the views and re-exports these helpers.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { CfnResource, CfnTemplate } from './documents';
import { isJsonObject, maybeAt, objectAt, stringAt, type Json, type JsonObject } from './json';

export interface TemplateView {
  /** The root stack's artifact id, or the nested stack's construct id. */
  readonly name: string;
  readonly template: Template;
  readonly json: CfnTemplate;
  readonly parent: TemplateView | undefined;
  /** Nested stacks: the values the parent passes for their parameters. */
  readonly parameterValues: Readonly<JsonObject>;
  /** Nested stacks by the logical id of their AWS::CloudFormation::Stack resource here. */
  readonly children: Map<string, TemplateView>;
}

/** A resource an intrinsic points at, after following nested-stack parameters. */
export interface Target {
  readonly view: TemplateView;
  readonly logicalId: string;
  readonly attribute: string | undefined;
}

/** Follows Ref / Fn::GetAtt (through nested-stack parameters) to the resource it names. */
export function targetOf(view: TemplateView, value: Json | undefined): Target | undefined {
  if (!isJsonObject(value)) return undefined;
  const ref = value.Ref;
  if (typeof ref === 'string') {
    if (ref in view.parameterValues && view.parent) return targetOf(view.parent, view.parameterValues[ref]);
    if (ref in view.json.Resources) return { view, logicalId: ref, attribute: undefined };
    return undefined;
  }
  if (Array.isArray(value['Fn::GetAtt'])) {
    const logicalId = stringAt(value, 'Fn::GetAtt', 0);
    const attribute = stringAt(value, 'Fn::GetAtt', 1);
    // An output of a nested stack: follow it into that stack.
    const child = view.children.get(logicalId);
    if (child && attribute.startsWith('Outputs.'))
      return targetOf(child, child.json.Outputs?.[attribute.slice('Outputs.'.length)]?.Value);
    return { view, logicalId, attribute };
  }
  return undefined;
}

/** `<arn>/*` or `<arn>/<prefix>/*` (a Fn::Join of a reference and "/...*"): the resource whose objects it names. */
export function objectsTargetOf(view: TemplateView, value: Json | undefined): Target | undefined {
  const join = maybeAt(value, 'Fn::Join');
  if (!Array.isArray(join) || join[0] !== '') return undefined;
  const parts = join[1];
  if (!Array.isArray(parts) || parts.length !== 2 || typeof parts[1] !== 'string') return undefined;
  if (!/^\/(?:[A-Za-z0-9._-]+\/)*\*$/.test(parts[1])) return undefined;
  return targetOf(view, parts[0]);
}

/** Whether two targets name the same resource of the same template. */
export function sameTarget(a: Target | undefined, b: Target | undefined): boolean {
  return a !== undefined && b !== undefined && a.view === b.view && a.logicalId === b.logicalId;
}

/** The resource a target names; an error when its template has none by that id. */
export function resourceOf(target: Pick<Target, 'view' | 'logicalId'>): CfnResource {
  const resource = target.view.json.Resources[target.logicalId];
  if (resource === undefined) throw new Error(`no resource ${target.logicalId} in ${target.view.name}`);
  return resource;
}

/** A resource's Properties; an error when it has none. */
export function propertiesOf(resource: CfnResource): JsonObject {
  return objectAt(resource, 'Properties');
}

/** The resources of a type in one template, with their logical ids. */
export function resourcesOfType(view: TemplateView, type: string): [string, CfnResource][] {
  return Object.entries(view.json.Resources).filter(([, resource]) => resource.Type === type);
}

/** The resources of a type in every template of a stage. */
export function allResourcesOfType(
  synthesized: { readonly views: readonly TemplateView[] },
  type: string,
): { view: TemplateView; logicalId: string; resource: CfnResource }[] {
  return synthesized.views.flatMap((view) =>
    resourcesOfType(view, type).map(([logicalId, resource]) => ({ view, logicalId, resource })),
  );
}
