import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  type Alarm,
  AlarmStatusWidget,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import {
  CONNECTOR_METRICS,
  DIMENSIONS,
  ENGINE_SLOT_METRICS,
  JOB_METRICS,
  JOB_OUTCOME_METRIC,
  LINEAGE_METRICS,
  metricsNamespace,
  PROBLEM_FAMILY_METRIC,
  ROUTE_METRICS,
  SCHEDULE_TICK_METRIC,
  SERVICE_NAME,
  SWEEP_METRICS,
} from '../../shared/observability/metric-names';

/**
 * The widgets of a stage's dashboard (infra/stacks/monitoring.ts makes it): the alarms, the
 * API, the service's own metrics by route, job kind, family, connector and tick outcome
 * (CloudWatch searches, so a new route or connector needs no change here), the machines, the
 * table, Lambda's account metrics, the sweep and the engine slots.
 */

/** The period of the dashboard's graphs and of most alarms. */
export const FIVE_MINUTES = Duration.minutes(5);

/** A graph of every metric a search finds (one line per route, job kind or family), without a metric per resource in the template. */
function search(
  namespace: string,
  dimensions: readonly string[],
  metricName: string,
  statistic: string,
  label: string,
) {
  return new MathExpression({
    expression: `SEARCH('{${namespace},${dimensions.join(',')}} MetricName="${metricName}"', '${statistic}', 300)`,
    usingMetrics: {},
    label,
    period: FIVE_MINUTES,
  });
}

/** The dashboard's rows, top to bottom. */
export function dashboardRows(input: {
  stage: string;
  api: HttpApi;
  table: Table;
  machines: ReadonlyMap<string, StateMachine>;
  alarms: readonly { readonly alarm: Alarm }[];
}) {
  const namespace = metricsNamespace(input.stage);
  const { service, operation, family, job, ranOn, outcome, connector } = DIMENSIONS;
  const serviceMetric = (metricName: string, statistic: string, period = FIVE_MINUTES) =>
    new Metric({ namespace, metricName, dimensionsMap: { [service]: SERVICE_NAME }, statistic, period });
  const graph = (title: string, left: IMetric[], width = 8) => new GraphWidget({ title, left, width, height: 6 });
  const machines = [...input.machines];
  return [
    [
      new TextWidget({
        markdown: `# Data Preparation ${input.stage}\nRunbook: docs/operations.md. Metrics: namespace \`${namespace}\`; tenants and trace ids are in the log lines (Logs Insights).`,
        width: 24,
        height: 2,
      }),
    ],
    // A status widget shows at most 100 alarms.
    chunks(
      input.alarms.map(({ alarm }) => alarm),
      100,
    ).map((alarms, index) => new AlarmStatusWidget({ title: `Alarms (${index + 1})`, alarms, width: 24, height: 6 })),
    [
      graph('API requests and 5xx', [
        input.api.metricCount({ period: FIVE_MINUTES }),
        input.api.metricServerError({ period: FIVE_MINUTES }),
        input.api.metricClientError({ period: FIVE_MINUTES }),
      ]),
      graph('API latency p50 / p99 (ms)', [
        input.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p50' }),
        input.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99' }),
      ]),
      graph('Problems by code family', [search(namespace, [service, family], PROBLEM_FAMILY_METRIC, 'Sum', '')]),
    ],
    [
      graph('Requests by route', [search(namespace, [service, operation], ROUTE_METRICS.requests, 'Sum', '')]),
      graph('Latency p99 by route (ms)', [search(namespace, [service, operation], ROUTE_METRICS.latency, 'p99', '')]),
      graph('5xx by route', [search(namespace, [service, operation], ROUTE_METRICS.serverErrors, 'Sum', '')]),
    ],
    [
      graph('Job starts by kind and place', [search(namespace, [service, job, ranOn], JOB_METRICS.starts, 'Sum', '')]),
      graph('Job duration p90 (ms)', [search(namespace, [service, job, ranOn], JOB_METRICS.duration, 'p90', '')]),
      graph('Job outcomes', [search(namespace, [service, job, outcome], JOB_OUTCOME_METRIC, 'Sum', '')]),
    ],
    [
      graph('Job CPU seconds', [search(namespace, [service, job, ranOn], JOB_METRICS.cpuSeconds, 'Sum', '')]),
      graph(
        'State machines: failed and timed out',
        machines.flatMap(([kind, machine]) => [
          machine.metricFailed({ period: FIVE_MINUTES, label: `${kind} failed` }),
          machine.metricTimedOut({ period: FIVE_MINUTES, label: `${kind} timed out` }),
        ]),
      ),
      graph('DynamoDB throttles and system errors', [
        input.table.metric('ReadThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
        input.table.metric('WriteThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
        input.table.metric('SystemErrors', { period: FIVE_MINUTES, statistic: 'Sum' }),
      ]),
    ],
    [
      graph('Lambda throttles and concurrency (account)', [
        new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: 'Sum', period: FIVE_MINUTES }),
        new Metric({
          namespace: 'AWS/Lambda',
          metricName: 'ConcurrentExecutions',
          statistic: 'Maximum',
          period: FIVE_MINUTES,
        }),
      ]),
      graph('Retention sweep (per day)', [
        serviceMetric(SWEEP_METRICS.runs, 'Sum', Duration.days(1)),
        serviceMetric(SWEEP_METRICS.deleted, 'Sum', Duration.days(1)),
        serviceMetric(SWEEP_METRICS.failed, 'Sum', Duration.days(1)),
      ]),
      graph('Engine slots: waits p99 (ms), queued and refused tasks', [
        serviceMetric(ENGINE_SLOT_METRICS.wait, 'p99'),
        serviceMetric(ENGINE_SLOT_METRICS.queued, 'Sum'),
        serviceMetric(ENGINE_SLOT_METRICS.refused, 'Sum'),
      ]),
    ],
    [
      graph('Connector calls by connector and outcome', [
        search(namespace, [service, connector, outcome], CONNECTOR_METRICS.calls, 'Sum', ''),
      ]),
      graph('Connector latency p90 (ms)', [
        search(namespace, [service, connector, outcome], CONNECTOR_METRICS.latency, 'p90', ''),
      ]),
      graph('Schedule ticks by outcome', [search(namespace, [service, outcome], SCHEDULE_TICK_METRIC, 'Sum', '')]),
    ],
    [
      graph('OpenLineage events delivered and lost', [
        serviceMetric(LINEAGE_METRICS.delivered, 'Sum'),
        serviceMetric(LINEAGE_METRICS.failed, 'Sum'),
      ]),
    ],
  ];
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}
