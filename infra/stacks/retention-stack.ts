/**
 * The retention sweep in a nested stack (docs/retention.md): its function, with its declared
 * access only (the table and the data bucket), and the two EventBridge rules that invoke it.
 * The daily one (RETENTION_SWEEP_SCHEDULE, a stage setting) hands it the scheduled event,
 * whose time is the sweep's moment; the continuation one lets a sweep longer than one
 * invocation go on from its stored cursor. Each rule may invoke this function alone.
 */
import { Duration, NestedStack } from 'aws-cdk-lib';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { SETTINGS } from '../../shared/config';
import type { ResourceAccess } from '../../shared/resource-access';
import type { AccessTargets } from './access-targets';
import { ServiceFunction } from './service-function';

/** The sweep function's handler, under functions/. */
export const SWEEP_HANDLER = 'retention/sweep';

/**
 * What the sweep touches: the versions' items and journal in the table, their files in the
 * bucket, which it lists and deletes (shared/aws/data-bucket.ts deletePrefix) and never reads;
 * and the stage's Scheduler schedules, whose survivors of deleted schedules it deletes
 * (shared/schedules/reconcile.ts).
 */
export const SWEEP_ACCESS: ResourceAccess = { table: 'write', dataBucket: 'delete', schedules: 'reconcile' };
/** Lambda's limit: a step hands over to the next invocation a minute before it (functions/retention/sweep.ts). */
const SWEEP_TIMEOUT = Duration.minutes(15);
/** How often an unfinished sweep goes on; an invocation with no sweep in progress reads one item and ends. */
export const CONTINUATION_SCHEDULE = Schedule.rate(Duration.minutes(15));

export interface RetentionStackProps {
  readonly targets: AccessTargets;
  readonly environment: Readonly<Record<string, string>>;
  /** The sweep's memory (the stage's `memory.retention`). */
  readonly memorySize: number;
}

export class RetentionStack extends NestedStack {
  readonly sweep: ServiceFunction;

  constructor(scope: Construct, id: string, props: RetentionStackProps) {
    super(scope, id, { description: 'Data Preparation Service: the retention sweep and its schedules' });
    this.sweep = new ServiceFunction(this, 'RetentionSweep', {
      handler: SWEEP_HANDLER,
      description: 'retention sweep (functions/retention/sweep.ts)',
      access: SWEEP_ACCESS,
      targets: props.targets,
      environment: props.environment,
      timeout: SWEEP_TIMEOUT,
      memorySize: props.memorySize,
    });
    const schedule = props.environment.RETENTION_SWEEP_SCHEDULE ?? SETTINGS.RETENTION_SWEEP_SCHEDULE.fallback();
    new Rule(this, 'DailySweep', {
      description: 'Starts the retention sweep',
      schedule: Schedule.expression(schedule),
      targets: [new LambdaFunction(this.sweep.function, { retryAttempts: 2 })],
    });
    new Rule(this, 'SweepContinuation', {
      description: 'Goes on with a retention sweep that one invocation could not finish',
      schedule: CONTINUATION_SCHEDULE,
      targets: [
        new LambdaFunction(this.sweep.function, {
          event: RuleTargetInput.fromObject({ continue_only: true }),
          retryAttempts: 2,
        }),
      ],
    });
  }
}
