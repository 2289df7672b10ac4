/**
 * Look-ups and the least-privilege check of api.test.ts, over the stage it synthesizes once: the
 * function of a route, the API routes and the function each integrates, a job's state machine,
 * and the IAM grants and environment a function must have for the access it declares.
 */
import type { CfnElement } from 'aws-cdk-lib';
import { expect } from 'vitest';
import { routes } from '../../functions/routes';
import { API_BASE_PATH } from '../../shared/config';
import { stateMachineArnVariable, type WorkerSpec } from '../../shared/jobs/define-job';
import type { ResourceAccess, StartableJob } from '../../shared/resource-access';
import { SCHEDULER_ACTIONS, SCHEDULER_LIST_ACTION } from '../../infra/stacks/schedule-access';
import type { CfnResource } from './documents';
import { actionsOnObjects, actionsOnTarget, BUCKET_GRANTS, DYNAMODB_READ, DYNAMODB_WRITE } from './grants';
import { at, maybeAt } from './json';
import {
  actionsOf,
  allResourcesOfType,
  dataBucket,
  functionOf,
  grants,
  propertiesOf,
  resourceOf,
  sameTarget,
  targetOf,
  workerOf,
  type FunctionInfo,
  type Grant,
  type rootKeys,
  type SynthesizedStage,
  type Target,
} from './synth';

/** The function of a route of the route table. */
export const routeFunction = (stage: SynthesizedStage, route: (typeof routes)[number]): FunctionInfo =>
  functionOf(stage, route.handler, (fn) =>
    fn.description.startsWith(`${route.method} ${API_BASE_PATH}${route.path} (`),
  );

/** Every API Gateway route of the stage, in whichever template it lives. */
export const apiRoutes = (stage: SynthesizedStage) => allResourcesOfType(stage, 'AWS::ApiGatewayV2::Route');

/** Every function of the stage with what it declares (routes, then job workers), found in a stage. */
export const declaredFunctions = (
  workers: readonly WorkerSpec[],
): readonly (readonly [string, ResourceAccess, (stage: SynthesizedStage) => FunctionInfo])[] => [
  ...routes.map(
    (route) => [route.handler, route.access, (stage: SynthesizedStage) => routeFunction(stage, route)] as const,
  ),
  ...workers.map(
    (worker) =>
      [`worker ${worker.name}`, worker.access, (stage: SynthesizedStage) => workerOf(stage, worker.name)] as const,
  ),
];

/** The API Gateway routes of a route of the route table (one, when the stage is right). */
export const apiRoutesFor = (stage: SynthesizedStage, route: Pick<(typeof routes)[number], 'method' | 'path'>) =>
  apiRoutes(stage).filter(
    ({ resource }) => propertiesOf(resource).RouteKey === `${route.method} ${API_BASE_PATH}${route.path}`,
  );

/** Whether a grant is on the table key, and only for DynamoDB to use on the function's behalf. */
export const isTableKeyThroughDynamoDb = (grant: Grant, keys: ReturnType<typeof rootKeys>): boolean =>
  sameTarget(grant.target, keys.table) && Boolean(maybeAt(grant.condition, 'StringEquals', 'kms:ViaService'));

/** The function an API route's integration invokes. */
export function integratedFunction(route: {
  view: SynthesizedStage['root'];
  resource: CfnResource;
}): Target | undefined {
  const target = at(route.resource, 'Properties', 'Target', 'Fn::Join', 1, 1);
  const integration = targetOf(route.view, target)!;
  const properties = propertiesOf(resourceOf(integration));
  expect(properties.IntegrationType).toBe('AWS_PROXY');
  expect(properties.PayloadFormatVersion).toBe('2.0');
  return targetOf(integration.view, properties.IntegrationUri);
}

const isStop = (grant: Grant) => grant.action === 'states:StopExecution';

/** The `{Ref}`s a value is built from, but the pseudo parameters (AWS::Region...). */
function refsIn(value: unknown): { Ref: string }[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== 'object' || value === null) return [];
  const { Ref: ref } = value as { Ref?: unknown };
  if (typeof ref === 'string') return ref.startsWith('AWS::') ? [] : [{ Ref: ref }];
  return Object.values(value).flatMap(refsIn);
}

/** The machine an execution pattern `arn:...:execution:<machine name>:*` is built from (its ARN's only reference). */
function executionsMachine(fn: FunctionInfo, grant: Grant): Target | undefined {
  const [machine, ...others] = refsIn(grant.resource);
  return others.length === 0 ? targetOf(fn.view, machine) : undefined;
}

/** A job's deployed state machine. */
export function stateMachine(stage: SynthesizedStage, job: StartableJob): Target {
  const machine = stage.stack.jobs?.stateMachines.get(job.name);
  if (machine === undefined) throw new Error(`no state machine ${job.name}`);
  const logicalId = stage.stack.jobs!.resolve((machine.node.defaultChild as CfnElement).logicalId) as string;
  return { view: stage.nested.find((view) => view.name === 'Jobs')!, logicalId, attribute: undefined };
}

/** What active tracing grants every function, on * (X-Ray has no narrower resource). */
export const TRACING_ACTIONS = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

/** A grant of active tracing: an X-Ray action on *. */
export function isTracingGrant(grant: Grant): boolean {
  return grant.action.startsWith('xray:') && grant.resource === '*';
}

/** The X-Ray actions a function may use, sorted: TRACING_ACTIONS, on * alone. */
export function tracingGrants(fn: FunctionInfo): string[] {
  const xray = grants(fn).filter((grant) => grant.action.startsWith('xray:'));
  expect(xray.every(isTracingGrant), fn.description).toBe(true);
  return [...new Set(xray.map((grant) => grant.action))].sort();
}

/** A grant of access.schedules (infra/stacks/schedule-access.ts): a Scheduler action, or passing the scheduler's role. */
export function isScheduleGrant(grant: Grant): boolean {
  return grant.action.startsWith('scheduler:') || grant.action === 'iam:PassRole';
}

/**
 * Expects a function to get exactly what its access.schedules declares: the stage group's
 * schedules, its scheduler role passed to the Scheduler only, and ListSchedules (on *, as it
 * takes no resource) only where it reconciles.
 */
function expectScheduleAccess(fn: FunctionInfo, access: ResourceAccess): void {
  const scheduleGrants = grants(fn).filter(isScheduleGrant);
  const expected =
    access.schedules === undefined
      ? []
      : [...SCHEDULER_ACTIONS, 'iam:PassRole', ...(access.schedules === 'reconcile' ? [SCHEDULER_LIST_ACTION] : [])];
  expect([...new Set(scheduleGrants.map((grant) => grant.action))].sort(), fn.description).toEqual(expected.sort());
  for (const grant of scheduleGrants) {
    if (grant.action === SCHEDULER_LIST_ACTION) expect(grant.resource).toBe('*');
    else if (grant.action === 'iam:PassRole') {
      expect(JSON.stringify(grant.resource)).toMatch(/:role\/data-preparation-[a-z0-9-]+-scheduler"/);
      expect(grant.condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    } else expect(JSON.stringify(grant.resource)).toMatch(/:schedule\/data-preparation-[a-z0-9-]+\/\*"/);
  }
  expect('SCHEDULE_GROUP' in fn.environment, fn.description).toBe(access.schedules !== undefined);
}

/**
 * Expects a function to get exactly what its access declares: table, keys, data bucket and the
 * state machines it starts, each only as far as declared, and the environment naming them.
 */
export function expectDeclaredAccess(
  stage: SynthesizedStage,
  keys: ReturnType<typeof rootKeys>,
  fn: FunctionInfo,
  access: ResourceAccess,
): void {
  const actions = actionsOf(fn);
  const dynamodb = [...actions].filter((action) => action.startsWith('dynamodb:'));
  if (access.table === undefined) expect(dynamodb).toEqual([]);
  if (access.table !== undefined) for (const action of DYNAMODB_READ) expect(actions).toContain(action);
  for (const action of DYNAMODB_WRITE) expect(actions.has(action), action).toBe(access.table === 'write');
  // Table actions are on the table only.
  const [table] = Object.keys(stage.root.template.findResources('AWS::DynamoDB::Table'));
  for (const grant of grants(fn).filter((grant) => grant.action.startsWith('dynamodb:')))
    expect(grant.target?.logicalId).toBe(table);
  // KMS on the table key only through DynamoDB, on the bucket key only through S3.
  for (const grant of grants(fn).filter((grant) => sameTarget(grant.target, keys.table))) {
    expect(maybeAt(grant.condition, 'StringEquals', 'kms:ViaService')).toEqual({
      'Fn::Join': ['', ['dynamodb.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
    });
  }
  for (const grant of grants(fn).filter((grant) => sameTarget(grant.target, keys.bucket))) {
    expect(maybeAt(grant.condition, 'StringEquals', 'kms:ViaService')).toEqual({
      'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
    });
  }
  expect(actionsOnTarget(fn, keys.table).length > 0).toBe(access.table !== undefined);
  const expectedDataKey = (access.dataKey ?? [])
    .map((use) => (use === 'encrypt' ? 'kms:GenerateDataKey' : 'kms:Decrypt'))
    .sort();
  expect(actionsOnTarget(fn, keys.data).sort()).toEqual(expectedDataKey);
  const expectedSigning =
    access.signingKey === 'sign' ? ['kms:Sign'] : access.signingKey === 'verify' ? ['kms:GetPublicKey'] : [];
  expect(actionsOnTarget(fn, keys.signing)).toEqual(expectedSigning);
  // The data bucket: list the bucket, objects by use, the bucket key to match.
  const bucket = dataBucket(stage);
  const expectedBucket = BUCKET_GRANTS[access.dataBucket ?? 'none'];
  expect(actionsOnTarget(fn, bucket)).toEqual(expectedBucket.bucket);
  expect(actionsOnObjects(fn, bucket)).toEqual(expectedBucket.objects);
  expect(actionsOnTarget(fn, keys.bucket).sort()).toEqual(expectedBucket.key);
  // Jobs: StartExecution on exactly the machines it starts, StopExecution on the executions of those it stops.
  const started = (access.startsJobs ?? []).map((job) => stateMachine(stage, job));
  const starts = grants(fn).filter((grant) => grant.action.startsWith('states:') && !isStop(grant));
  expect(starts.map((grant) => grant.action)).toEqual(started.map(() => 'states:StartExecution'));
  for (const machine of started) expect(starts.some((grant) => sameTarget(grant.target, machine))).toBe(true);
  const stopped = (access.stopsJobs ?? []).map((job) => stateMachine(stage, job));
  const stops = grants(fn).filter(isStop);
  expect(stops).toHaveLength(stopped.length);
  for (const machine of stopped)
    expect(stops.some((grant) => sameTarget(executionsMachine(fn, grant), machine))).toBe(true);
  // Nothing else: every non-log grant is on the table, a key, the bucket or a started machine.
  const known = [keys.table, keys.data, keys.signing, keys.bucket, bucket, ...started];
  expect(tracingGrants(fn)).toEqual(TRACING_ACTIONS);
  const others = grants(fn).filter((grant) => !grant.action.startsWith('logs:') && !isStop(grant));
  expectScheduleAccess(fn, access);
  for (const grant of others.filter((grant) => !isTracingGrant(grant) && !isScheduleGrant(grant))) {
    const on = grant.target ?? grant.objectsOf;
    expect(
      on?.logicalId === table || known.some((target) => sameTarget(on, target)),
      `${grant.action} on ${JSON.stringify(grant.resource)}`,
    ).toBe(true);
  }
  // Resource names reach a function only with the access to use them.
  expect('TABLE_NAME' in fn.environment).toBe(access.table !== undefined);
  expect('DATA_KEY_ID' in fn.environment).toBe((access.dataKey ?? []).length > 0);
  expect('SIGNING_KEY_ID' in fn.environment).toBe(access.signingKey !== undefined);
  expect('DATA_BUCKET' in fn.environment).toBe(access.dataBucket !== undefined);
  if (access.dataBucket !== undefined)
    expect(sameTarget(targetOf(fn.view, fn.environment.DATA_BUCKET), bucket)).toBe(true);
  const machineVariables = Object.keys(fn.environment).filter((name) => name.endsWith('_STATE_MACHINE_ARN'));
  const named = [...new Set([...(access.startsJobs ?? []), ...(access.stopsJobs ?? [])].map(stateMachineArnVariable))];
  expect(machineVariables.sort()).toEqual(named.sort());
  for (const job of [...(access.startsJobs ?? []), ...(access.stopsJobs ?? [])])
    expect(sameTarget(targetOf(fn.view, fn.environment[stateMachineArnVariable(job)]), stateMachine(stage, job))).toBe(
      true,
    );
}
