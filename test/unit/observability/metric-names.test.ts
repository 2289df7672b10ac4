import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jobs } from '../../../functions/jobs';
import { routes } from '../../../functions/routes';
import { CONNECTION_TYPES } from '../../../shared/model/connection';
import { parseAlarmThresholds } from '../../../infra/stacks/alarm-thresholds';
import { errorCatalogue } from '../../../shared/errors/catalogue';
import { runsOnFargate } from '../../../shared/jobs/define-job';
import { codeFamily, metricSeriesCount } from '../../../shared/observability/metric-names';

describe('the metrics a stage makes', () => {
  it('a code’s family is its part before the dash', () => {
    expect(codeFamily('30-1100')).toBe('30');
    expect(codeFamily('10-500')).toBe('10');
  });

  it('are bounded by the route table, the catalogue’s families and the jobs, under the bound docs/operations.md states', () => {
    const families = new Set(Object.keys(errorCatalogue).map(codeFamily)).size;
    const count = metricSeriesCount({
      operations: routes.length + 1,
      families,
      jobs: jobs.map((job) => ({
        places: 1 + (runsOnFargate(job.worker) ? 1 : 0) + (job.worker.athenaQueries ? 1 : 0),
      })),
      connectors: CONNECTION_TYPES.length,
    });
    const bound = /\*\*(\d+) metrics per stage\*\*/.exec(readFileSync('docs/operations.md', 'utf8'))?.[1];
    expect(count, 'the tables grew: state the new bound in docs/operations.md').toBeLessThanOrEqual(Number(bound));
    expect(count).toBeGreaterThan(Number(bound) / 2);
  });
});

describe('alarm thresholds (CDK context "alarms")', () => {
  it('default every threshold and take a stage’s own', () => {
    expect(parseAlarmThresholds(undefined)).toMatchObject({
      apiServerErrorPercent: 1,
      jobFailures: 5,
      sweepMissedDays: 2,
      engineSlotRefusals: 5,
    });
    expect(parseAlarmThresholds('{"jobFailures": 10}').jobFailures).toBe(10);
  });

  it('refuse unknown names and values out of range, naming each', () => {
    expect(() => parseAlarmThresholds({ sweepMissedDays: 9, apiP99: 1 })).toThrow(
      /alarms\.\(root\): .*apiP99.*|alarms\.sweepMissedDays/,
    );
    expect(() => parseAlarmThresholds({ sweepMissedDays: 9 })).toThrow(/alarms\.sweepMissedDays: /);
  });
});
