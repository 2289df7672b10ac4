/**
 * What a function that keeps schedules in step (access.schedules) may do in EventBridge
 * Scheduler, and the names that tie the stage's schedule group, its scheduler role and the
 * tick function together. The names are fixed per stage, so a function in any nested stack
 * (a route's, the import worker's, the sweep's) names them without a reference across stacks,
 * and the tick function, which starts builds, can stand after the job machines it starts.
 */
import { ArnFormat, Aws, Stack, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type { Construct } from 'constructs';

/** The stage's schedule group, the role the Scheduler assumes, and the function its schedules invoke. */
export interface ScheduleNames {
  readonly groupName: string;
  readonly roleName: string;
  readonly tickFunctionName: string;
}

export function scheduleNames(stage: string): ScheduleNames {
  return {
    groupName: `data-preparation-${stage}`,
    roleName: `data-preparation-${stage}-scheduler`,
    tickFunctionName: `data-preparation-${stage}-schedule-tick`,
  };
}

/** What shared/schedules/scheduler.ts asks of the Scheduler, on the group's schedules. */
export const SCHEDULER_ACTIONS = [
  'scheduler:CreateSchedule',
  'scheduler:DeleteSchedule',
  'scheduler:GetSchedule',
  'scheduler:UpdateSchedule',
] as const;
/** The reconciliation lists the group's schedules; ListSchedules names no resource. */
export const SCHEDULER_LIST_ACTION = 'scheduler:ListSchedules';

/** The ARNs the names stand for, in the stack's partition, region and account. */
export function scheduleArns(scope: Construct, names: ScheduleNames) {
  const stack = Stack.of(scope);
  return {
    schedules: stack.formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${names.groupName}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    }),
    role: `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/${names.roleName}`,
    tick: stack.formatArn({
      service: 'lambda',
      resource: 'function',
      resourceName: names.tickFunctionName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
  };
}

/** The environment shared/config.ts reads as `config.schedules`. */
export function scheduleEnvironment(scope: Construct, names: ScheduleNames): Record<string, string> {
  const arns = scheduleArns(scope, names);
  return { SCHEDULE_GROUP: names.groupName, SCHEDULE_TARGET_ARN: arns.tick, SCHEDULER_ROLE_ARN: arns.role };
}

/** The schedules of the stage's group, and the scheduler's role handed to them (to the Scheduler only). */
export function scheduleStatements(scope: Construct, names: ScheduleNames, use: true | 'reconcile'): PolicyStatement[] {
  const arns = scheduleArns(scope, names);
  const list =
    use === 'reconcile'
      ? [
          new PolicyStatement({
            sid: 'ListSchedules',
            effect: Effect.ALLOW,
            actions: [SCHEDULER_LIST_ACTION],
            resources: ['*'],
          }),
        ]
      : [];
  return [
    new PolicyStatement({
      sid: 'StageSchedules',
      effect: Effect.ALLOW,
      actions: [...SCHEDULER_ACTIONS],
      resources: [arns.schedules],
    }),
    ...list,
    new PolicyStatement({
      sid: 'PassSchedulerRole',
      effect: Effect.ALLOW,
      actions: ['iam:PassRole'],
      resources: [arns.role],
      conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    }),
  ];
}

/** The cdk-nag findings of those statements' wildcards, acknowledged on the role. */
export function acknowledgeScheduleAccess(role: Role, names: ScheduleNames, use: true | 'reconcile'): void {
  const { schedules } = scheduleArns(role, names);
  Validations.of(role).acknowledge({
    id: `AwsSolutions::AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(role).resolve(schedules))}]`,
    reason:
      "The stage's schedule group: one schedule per tenant schedule, named at run time; the handler names only the caller's tenant's.",
  });
  if (use === 'reconcile')
    Validations.of(role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason: 'scheduler:ListSchedules takes no resource; the reconciliation lists only the stage’s group.',
    });
}
