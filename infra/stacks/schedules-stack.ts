/**
 * Schedules of dataset builds in a nested stack (docs/schedules.md): the stage's EventBridge
 * Scheduler schedule group, the tick function every schedule invokes (functions/schedules/tick.ts,
 * which starts builds as a user's start does), and the role the Scheduler assumes to invoke it,
 * which may invoke that function and nothing else. The schedules themselves are made at run
 * time by the functions that declare access.schedules, one per tenant schedule.
 */
import { Aws, Duration, NestedStack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import { recipeRunJob } from '../../shared/datasets/jobs';
import type { ResourceAccess } from '../../shared/resource-access';
import type { AccessTargets } from './access-targets';
import type { ScheduleNames } from './schedule-access';
import { ServiceFunction } from './service-function';

export const TICK_HANDLER = 'schedules/tick';

/** What a tick touches: the schedule and its history, the build it starts, and its own Scheduler schedule. */
export const TICK_ACCESS: ResourceAccess = { table: 'write', startsJobs: [recipeRunJob], schedules: true };

export interface SchedulesStackProps {
  readonly targets: AccessTargets & { readonly schedules: ScheduleNames };
  readonly environment: Readonly<Record<string, string>>;
  readonly memorySize: number;
}

export class SchedulesStack extends NestedStack {
  readonly group: CfnScheduleGroup;
  readonly tick: ServiceFunction;
  /** The role EventBridge Scheduler assumes for every schedule of the group. */
  readonly schedulerRole: Role;

  constructor(scope: Construct, id: string, props: SchedulesStackProps) {
    super(scope, id, { description: 'Data Preparation Service: schedules of dataset builds' });
    const names = props.targets.schedules;
    this.group = new CfnScheduleGroup(this, 'Group', { name: names.groupName });
    this.tick = new ServiceFunction(this, 'Tick', {
      handler: TICK_HANDLER,
      functionName: names.tickFunctionName,
      description: `schedule tick (functions/${TICK_HANDLER}.ts)`,
      access: TICK_ACCESS,
      targets: props.targets,
      environment: props.environment,
      timeout: Duration.seconds(60),
      memorySize: props.memorySize,
    });
    this.schedulerRole = new Role(this, 'SchedulerRole', {
      roleName: names.roleName,
      description: 'EventBridge Scheduler: invokes the schedule tick function, nothing else',
      // Only the Scheduler of this account may assume it (the confused-deputy guard AWS documents).
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    });
    this.schedulerRole.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'InvokeTickOnly',
        effect: Effect.ALLOW,
        actions: ['lambda:InvokeFunction'],
        resources: [this.tick.function.functionArn],
      }),
    );
  }
}
