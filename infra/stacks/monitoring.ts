/**
 * A stage's alarms and dashboard (docs/operations.md is their runbook: one entry per alarm
 * kind of ALARM_KINDS), with one SNS topic, encrypted with a key of its own, that every alarm
 * notifies. Plain CloudWatch constructs (docs/decisions.md, "Metrics, traces and alarms"):
 * each alarm kind is declared here once, with the threshold a stage may change
 * (alarm-thresholds.ts), and the tests and the runbook name the same kinds.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  DIMENSIONS,
  ENGINE_SLOT_METRICS,
  LINEAGE_METRICS,
  metricsNamespace,
  SERVICE_NAME,
  SWEEP_METRICS,
} from '../../shared/observability/metric-names';
import { handlerFunctionName, handlerLabel } from '../../shared/http/handler-ref';
import type { AlarmThresholds } from './alarm-thresholds';
import { dashboardRows, FIVE_MINUTES } from './monitoring-dashboard';
import type { ServiceFunction } from './service-function';

/** Every kind of alarm a stage has; docs/operations.md has a runbook entry for each (a unit test checks). */
export const ALARM_KINDS = [
  'api-5xx-rate',
  'api-p99-latency',
  'function-errors',
  'lambda-throttles',
  'lambda-concurrency',
  'job-failures',
  'job-timeouts',
  'table-throttles',
  'table-system-errors',
  'sweep-missed',
  'sweep-failures',
  'engine-refusals',
  'lineage-delivery-failures',
] as const;
export type AlarmKind = (typeof ALARM_KINDS)[number];

export interface MonitoringProps {
  readonly stage: string;
  readonly api: HttpApi;
  readonly table: Table;
  /** Every function of the stage. */
  readonly functions: readonly ServiceFunction[];
  /** By job kind. */
  readonly stateMachines: ReadonlyMap<string, StateMachine>;
  readonly thresholds: AlarmThresholds;
}

export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  /** Every alarm, with its kind. */
  readonly alarms: { readonly kind: AlarmKind; readonly alarm: Alarm }[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { stage, api, table, thresholds } = props;
    const prefix = `data-preparation-${stage}`;

    // CloudWatch publishes to an encrypted topic only with a customer managed key that lets it.
    const key = new Key(this, 'TopicKey', {
      description: `Data Preparation ${stage}: alarm notifications (SNS)`,
      alias: `alias/data-preparation/${stage}/alarms`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    this.topic = new Topic(this, 'AlarmTopic', {
      topicName: `${prefix}-alarms`,
      displayName: `Data Preparation ${stage} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    const action = new SnsAction(this.topic);

    const alarm = (kind: AlarmKind, name: string, metric: IMetric, options: AlarmOptions) => {
      const made = new Alarm(this, `${name}Alarm`, {
        alarmName: `${prefix}-${name}`,
        alarmDescription: `${options.description} Runbook: docs/operations.md#${kind}`,
        metric,
        threshold: options.threshold,
        evaluationPeriods: options.evaluationPeriods ?? 1,
        datapointsToAlarm: options.datapointsToAlarm,
        comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: options.missing ?? TreatMissingData.NOT_BREACHING,
      });
      made.addAlarmAction(action);
      made.addOkAction(action);
      this.alarms.push({ kind, alarm: made });
      return made;
    };

    // ---- API ---------------------------------------------------------------------------------
    const requests = api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' });
    alarm(
      'api-5xx-rate',
      'api-5xx-rate',
      new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: { requests, errors: api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }) },
        label: 'API 5xx, % of requests',
        period: FIVE_MINUTES,
      }),
      {
        threshold: thresholds.apiServerErrorPercent,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `More than ${thresholds.apiServerErrorPercent}% of the API's answers were 5xx.`,
      },
    );
    alarm('api-p99-latency', 'api-p99-latency', api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99' }), {
      threshold: thresholds.apiP99LatencyMs,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `The API's p99 latency was above ${thresholds.apiP99LatencyMs} ms for 15 minutes.`,
    });

    // ---- Lambda ------------------------------------------------------------------------------
    const names = new Set<string>();
    for (const fn of props.functions) {
      // Unique, should two functions share a handler.
      let name = `function-errors-${handlerFunctionName(fn.handler)}`;
      for (let n = 2; names.has(name); n += 1) name = `function-errors-${handlerFunctionName(fn.handler)}-${n}`;
      names.add(name);
      alarm('function-errors', name, fn.function.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }), {
        threshold: thresholds.functionErrors,
        description: `${handlerLabel(fn.handler)} failed (crashed, timed out or ran out of memory).`,
      });
    }
    const accountLambda = (metricName: string, statistic: string) =>
      new Metric({ namespace: 'AWS/Lambda', metricName, statistic, period: FIVE_MINUTES });
    alarm('lambda-throttles', 'lambda-throttles', accountLambda('Throttles', 'Sum'), {
      threshold: thresholds.lambdaThrottles,
      description: "Lambda throttled invocations in the stage's account and region.",
    });
    alarm('lambda-concurrency', 'lambda-concurrency', accountLambda('ConcurrentExecutions', 'Maximum'), {
      threshold: thresholds.lambdaConcurrentExecutions,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `Lambda concurrency in the account and region neared its limit (${thresholds.lambdaConcurrentExecutions}).`,
    });

    // ---- Jobs --------------------------------------------------------------------------------
    const fifteenMinutes = Duration.minutes(15);
    for (const [kind, machine] of props.stateMachines) {
      alarm(
        'job-failures',
        `job-failures-${kind}`,
        machine.metricFailed({ period: fifteenMinutes, statistic: 'Sum' }),
        {
          threshold: thresholds.jobFailures,
          description: `${thresholds.jobFailures} or more ${kind} jobs failed in 15 minutes.`,
        },
      );
      alarm(
        'job-timeouts',
        `job-timeouts-${kind}`,
        machine.metricTimedOut({ period: fifteenMinutes, statistic: 'Sum' }),
        {
          threshold: thresholds.jobTimeouts,
          description: `A ${kind} job's state machine timed out.`,
        },
      );
    }

    // ---- DynamoDB ----------------------------------------------------------------------------
    alarm(
      'table-throttles',
      'table-throttles',
      new MathExpression({
        expression: 'reads + writes',
        usingMetrics: {
          reads: table.metric('ReadThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
          writes: table.metric('WriteThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
        },
        label: 'Throttle events',
        period: FIVE_MINUTES,
      }),
      { threshold: thresholds.tableThrottles, description: 'DynamoDB throttled requests to the table.' },
    );
    alarm(
      'table-system-errors',
      'table-system-errors',
      table.metricSystemErrorsForOperations({
        operations: [
          Operation.GET_ITEM,
          Operation.PUT_ITEM,
          Operation.UPDATE_ITEM,
          Operation.DELETE_ITEM,
          Operation.QUERY,
          Operation.BATCH_WRITE_ITEM,
          Operation.TRANSACT_WRITE_ITEMS,
          Operation.TRANSACT_GET_ITEMS,
          Operation.BATCH_GET_ITEM,
        ],
        period: FIVE_MINUTES,
      }),
      { threshold: thresholds.tableSystemErrors, description: 'DynamoDB answered requests to the table with 5xx.' },
    );

    // ---- Retention sweep ---------------------------------------------------------------------
    const namespace = metricsNamespace(stage);
    const serviceMetric = (metricName: string, period: Duration) =>
      new Metric({
        namespace,
        metricName,
        dimensionsMap: { [DIMENSIONS.service]: SERVICE_NAME },
        statistic: 'Sum',
        period,
      });
    const day = Duration.days(1);
    alarm('sweep-missed', 'sweep-missed', serviceMetric(SWEEP_METRICS.runs, day), {
      threshold: 1,
      evaluationPeriods: thresholds.sweepMissedDays,
      comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
      // No line at all is the very failure this alarm is for.
      missing: TreatMissingData.BREACHING,
      description: `The retention sweep has not swept for ${thresholds.sweepMissedDays} day(s).`,
    });
    alarm('sweep-failures', 'sweep-failures', serviceMetric(SWEEP_METRICS.failed, day), {
      threshold: thresholds.sweepFailures,
      description: 'The retention sweep failed to delete expired versions.',
    });

    // ---- Engine slots ------------------------------------------------------------------------
    alarm('engine-refusals', 'engine-refusals', serviceMetric(ENGINE_SLOT_METRICS.refused, FIVE_MINUTES), {
      threshold: thresholds.engineSlotRefusals,
      description: `${thresholds.engineSlotRefusals} or more engine tasks found every engine slot taken for as long as they could wait (50-1012).`,
    });

    // ---- Lineage deliveries ------------------------------------------------------------------
    // A stage without OPENLINEAGE_URL writes no line: missing data is no failure.
    alarm(
      'lineage-delivery-failures',
      'lineage-delivery-failures',
      serviceMetric(LINEAGE_METRICS.failed, fifteenMinutes),
      {
        threshold: thresholds.lineageDeliveryFailures,
        description: `${thresholds.lineageDeliveryFailures} or more OpenLineage run events were lost in 15 minutes.`,
      },
    );

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${prefix}`,
      widgets: dashboardRows({ stage, api, table, machines: props.stateMachines, alarms: this.alarms }),
    });
    new CfnOutput(Stack.of(this), 'AlarmTopicArn', {
      value: this.topic.topicArn,
      description: 'Subscribe to be told of alarms',
    });
    new CfnOutput(Stack.of(this), 'DashboardName', { value: this.dashboard.dashboardName });
  }
}

interface AlarmOptions {
  readonly threshold: number;
  readonly description: string;
  readonly evaluationPeriods?: number;
  readonly datapointsToAlarm?: number;
  readonly comparison?: ComparisonOperator;
  readonly missing?: TreatMissingData;
}
