/**
 * The stage's alarms, dashboard and alarm topic (infra/stacks/monitoring.ts), checked on the
 * synthesis of api.test.ts (the whole stage, with cdk-nag): an alarm of every kind, one per
 * function, two per job kind, each notifying the stage's encrypted topic and naming its
 * runbook entry; the dashboard's graphs over the service's own metrics, the engine slots',
 * the connector calls' and the schedule ticks' among them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobs } from '../../functions/jobs';
import { ALARM_KINDS } from '../../infra/stacks/monitoring';
import { PROJECT_ROOT } from '../../infra/stacks/service-function';
import {
  CONNECTOR_METRICS,
  ENGINE_SLOT_METRICS,
  JOB_METRICS,
  LINEAGE_METRICS,
  ROUTE_METRICS,
  SCHEDULE_TICK_METRIC,
  SWEEP_METRICS,
} from '../../shared/observability/metric-names';
import type { CfnResource } from './documents';
import { asList, at, maybeAt, stringAt } from './json';
import { propertiesOf, resourceOf, resourcesOfType, targetOf, type SynthesizedStage } from './synth';

const RUNBOOK = readFileSync(join(PROJECT_ROOT, 'docs', 'operations.md'), 'utf8');

/** Registers the checks; `stage` answers the file's synthesis once its beforeAll has run. */
export function monitoringChecks(stage: () => SynthesizedStage): void {
  const alarms = () =>
    new Map(
      resourcesOfType(stage().root, 'AWS::CloudWatch::Alarm').map(
        ([, alarm]) => [stringAt(alarm, 'Properties', 'AlarmName'), propertiesOf(alarm)] as const,
      ),
    );
  const alarm = (name: string) => {
    const found = alarms().get(`data-preparation-test-${name}`);
    if (found === undefined) throw new Error(`no alarm ${name}: ${[...alarms().keys()].join(', ')}`);
    return found;
  };
  const topic = (): [string, CfnResource] => {
    const topics = resourcesOfType(stage().root, 'AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    return topics[0]!;
  };

  describe('alarms and dashboard', () => {
    it('one alarm topic, encrypted with a rotated key CloudWatch may use, and reachable only over TLS', () => {
      const [topicId, resource] = topic();
      const key = resourceOf(targetOf(stage().root, at(resource, 'Properties', 'KmsMasterKeyId'))!);
      expect(at(key, 'Properties', 'EnableKeyRotation')).toBe(true);
      expect(JSON.stringify(at(key, 'Properties', 'KeyPolicy'))).toContain('cloudwatch.amazonaws.com');
      const policies = resourcesOfType(stage().root, 'AWS::SNS::TopicPolicy').filter(([, policy]) =>
        asList(at(policy, 'Properties', 'Topics')).some((ref) => maybeAt(ref, 'Ref') === topicId),
      );
      expect(JSON.stringify(policies.map(([, policy]) => at(policy, 'Properties', 'PolicyDocument')))).toContain(
        '"aws:SecureTransport":"false"',
      );
    });

    it('every alarm notifies the topic when it fires and when it clears, and names its runbook entry', () => {
      const [topicId] = topic();
      expect(alarms().size).toBeGreaterThan(stage().functions.length);
      for (const [name, properties] of alarms()) {
        expect(properties.AlarmActions, name).toEqual([{ Ref: topicId }]);
        expect(properties.OKActions, name).toEqual([{ Ref: topicId }]);
        const kind = /Runbook: docs\/operations\.md#([a-z0-9-]+)$/.exec(String(properties.AlarmDescription))?.[1];
        expect(ALARM_KINDS, name).toContain(kind);
      }
      // Every kind has its alarms and its runbook entry.
      const kinds = new Set(
        [...alarms().values()].map((properties) => /#([a-z0-9-]+)$/.exec(String(properties.AlarmDescription))?.[1]),
      );
      expect([...kinds].sort()).toEqual([...ALARM_KINDS].sort());
      for (const kind of ALARM_KINDS) expect(RUNBOOK, kind).toContain(`<a id="${kind}"></a>`);
    });

    it('the API: 5xx rate over its requests, and p99 latency', () => {
      const rate = alarm('api-5xx-rate');
      expect(JSON.stringify(rate.Metrics)).toContain('100 * errors / requests');
      expect(JSON.stringify(rate.Metrics)).toMatch(
        /"MetricName":"5xx".*"MetricName":"Count"|"MetricName":"Count".*"MetricName":"5xx"/,
      );
      expect(rate).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 3 });
      expect(alarm('api-p99-latency')).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        ExtendedStatistic: 'p99',
        Threshold: 5000,
      });
    });

    it('one errors alarm per function, naming its handler', () => {
      const errors = [...alarms().entries()].filter(([name]) => name.includes('-function-errors-'));
      expect(errors).toHaveLength(stage().functions.length);
      for (const [, properties] of errors)
        expect(properties).toMatchObject({
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Statistic: 'Sum',
          Threshold: 1,
        });
      // Each names its function's handler as the function's description does (handlerLabel).
      const labels = errors.map(([, properties]) => String(properties.AlarmDescription).split(' failed ')[0]!);
      for (const fn of stage().functions)
        expect(
          labels.filter((label) => fn.description.includes(`${label})`)),
          fn.description,
        ).toHaveLength(1);
      expect(alarm('lambda-throttles')).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Throttles' });
      expect(alarm('lambda-concurrency')).toMatchObject({ MetricName: 'ConcurrentExecutions', Statistic: 'Maximum' });
    });

    it.each(jobs.map((job) => job.name))('job kind %s: failed and timed-out executions of its machine', (kind) => {
      expect(alarm(`job-failures-${kind}`)).toMatchObject({
        Namespace: 'AWS/States',
        MetricName: 'ExecutionsFailed',
        Period: 900,
        Threshold: 5,
      });
      expect(alarm(`job-timeouts-${kind}`)).toMatchObject({
        Namespace: 'AWS/States',
        MetricName: 'ExecutionsTimedOut',
      });
    });

    it('DynamoDB: throttles and system errors of the table', () => {
      expect(JSON.stringify(alarm('table-throttles').Metrics)).toContain('WriteThrottleEvents');
      expect(JSON.stringify(alarm('table-system-errors').Metrics)).toContain('SystemErrors');
    });

    it('the retention sweep: not run for two days (no line at all included), or failing deletions', () => {
      expect(alarm('sweep-missed')).toMatchObject({
        Namespace: 'DataPreparation/test',
        MetricName: SWEEP_METRICS.runs,
        Dimensions: [{ Name: 'service', Value: 'data-preparation' }],
        Period: 86_400,
        EvaluationPeriods: 2,
        ComparisonOperator: 'LessThanThreshold',
        TreatMissingData: 'breaching',
      });
      expect(alarm('sweep-failures')).toMatchObject({ MetricName: SWEEP_METRICS.failed, Threshold: 1 });
    });

    it('the engine slots: tasks refused a slot, over the whole stage', () => {
      expect(alarm('engine-refusals')).toMatchObject({
        Namespace: 'DataPreparation/test',
        MetricName: ENGINE_SLOT_METRICS.refused,
        Dimensions: [{ Name: 'service', Value: 'data-preparation' }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 5,
        TreatMissingData: 'notBreaching',
      });
    });

    it('OpenLineage: lost run events over 15 minutes, none written being no failure', () => {
      expect(alarm('lineage-delivery-failures')).toMatchObject({
        Namespace: 'DataPreparation/test',
        MetricName: LINEAGE_METRICS.failed,
        Dimensions: [{ Name: 'service', Value: 'data-preparation' }],
        Statistic: 'Sum',
        Period: 900,
        Threshold: 5,
        TreatMissingData: 'notBreaching',
      });
    });

    it('a dashboard with the API, the routes, the jobs, the table and every alarm', () => {
      const dashboards = resourcesOfType(stage().root, 'AWS::CloudWatch::Dashboard');
      expect(dashboards).toHaveLength(1);
      const body = JSON.stringify(at(dashboards[0]![1], 'Properties', 'DashboardBody'));
      expect(at(dashboards[0]![1], 'Properties', 'DashboardName')).toBe('data-preparation-test');
      for (const name of [
        ROUTE_METRICS.requests,
        ROUTE_METRICS.latency,
        ROUTE_METRICS.serverErrors,
        JOB_METRICS.starts,
        JOB_METRICS.duration,
        'JobOutcomes',
        'ProblemsByFamily',
        'ExecutionsFailed',
        'ReadThrottleEvents',
        SWEEP_METRICS.runs,
        ENGINE_SLOT_METRICS.wait,
        ENGINE_SLOT_METRICS.refused,
        CONNECTOR_METRICS.calls,
        CONNECTOR_METRICS.latency,
        SCHEDULE_TICK_METRIC,
        LINEAGE_METRICS.failed,
      ])
        expect(body, name).toContain(name);
      // Connector calls are searched by connector and outcome, ticks by outcome.
      expect(body).toMatch(/\{DataPreparation\/test,service,connector,outcome\} MetricName=\\*"ConnectorCalls/);
      expect(body).toMatch(/\{DataPreparation\/test,service,outcome\} MetricName=\\*"ScheduleTicks/);
      expect(body).toContain('SEARCH(');
      expect(body).toContain('DataPreparation/test');
      expect(body).toContain('alarm');
    });

    it('functions and state machines are traced, and every function writes its metrics to the stage namespace', () => {
      for (const fn of stage().functions) {
        expect(at(fn.properties, 'TracingConfig', 'Mode'), fn.description).toBe('Active');
        expect(fn.environment.POWERTOOLS_METRICS_NAMESPACE, fn.description).toBe('DataPreparation/test');
        // Powertools comes from the stage's one layer, not the bundle.
        const layers = asList(at(fn.properties, 'Layers')).map((layer) => targetOf(fn.view, layer)?.logicalId ?? '');
        expect(
          layers.filter((id) => id.startsWith('PowertoolsLayer')),
          fn.description,
        ).toHaveLength(1);
      }
      const machines = stage().views.flatMap((view) => resourcesOfType(view, 'AWS::StepFunctions::StateMachine'));
      expect(machines.length).toBe(jobs.length);
      for (const [id, machine] of machines)
        expect(at(machine, 'Properties', 'TracingConfiguration'), id).toEqual({ Enabled: true });
    });
  });
}
