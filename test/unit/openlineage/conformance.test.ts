/**
 * The run events the service builds (shared/openlineage/build.ts), for every kind of job that
 * sends them and each way it ends, validated against the official OpenLineage schemas with a
 * JSON Schema validator (Ajv, draft 2020-12). The schemas are read from ../shared/openlineage-schemas;
 * where a clone stands alone this file says so and skips.
 */
import { describe, expect, it } from 'vitest';
import type { QualityReport } from '../../../shared/model/quality-rule';
import { buildRunEvent, runIdOf, type RunEventInput } from '../../../shared/openlineage/build';
import {
  OPENLINEAGE_SCHEMAS_ABSENT_NOTE,
  OPENLINEAGE_SCHEMAS_PRESENT,
  openLineageValidator,
} from '../../support/openlineage-schemas';

const NS = 'dps://local';
const table = { namespace: NS, name: 'local/data-tables/3' };
const node = { namespace: NS, name: 'local/datasets/1/versions/1/nodes/4' };
const base = { jobId: 'import-6c1f', kind: 'import', tenantId: 'local', namespace: NS } as const;

/** A FAILED report: a not_null rule with failing rows (and their samples), a row count, a rule that could not run. */
const REPORT: QualityReport = {
  status: 'FAILED',
  checked_date: '2026-01-02T03:04:05.000Z',
  duration_ms: 12,
  accepted: null,
  results: [
    {
      rule_id: 7,
      rule_name: 'amount present',
      kind: 'not_null',
      severity: 'error',
      passed: false,
      failing_row_count: 2,
      observed: null,
      sample_rows: [{ id: 41, amount: null, secret_note: 'row data' }],
      duration_ms: 3,
      error: null,
    },
    {
      rule_id: 8,
      rule_name: 'enough rows',
      kind: 'row_count_between',
      severity: 'warn',
      passed: true,
      failing_row_count: null,
      observed: 20,
      sample_rows: [],
      duration_ms: 3,
      error: null,
    },
    {
      rule_id: 9,
      rule_name: 'recent',
      kind: 'freshness',
      severity: 'warn',
      passed: false,
      failing_row_count: null,
      observed: '2020-01-01T00:00:00Z',
      sample_rows: [],
      duration_ms: 1,
      error: { code: '20-1031', message: 'no column updated_at' },
    },
  ],
};

const EVENTS: Record<string, RunEventInput> = {
  'import START': {
    ...base,
    eventType: 'START',
    inputs: [{ namespace: 's3://landing', name: 'sales/2024/' }],
    outputs: [table],
  },
  'import COMPLETE with the schema facet': {
    ...base,
    eventType: 'COMPLETE',
    inputs: [{ namespace: 's3://landing', name: 'sales/2024/' }],
    outputs: [
      {
        ...table,
        columns: [
          { name: 'id', type: 'BIGINT' },
          { name: 'amount', type: 'DOUBLE' },
        ],
      },
    ],
  },
  'import COMPLETE with the data-quality facet': {
    ...base,
    eventType: 'COMPLETE',
    inputs: [{ namespace: 's3://landing', name: 'sales/2024/' }],
    outputs: [{ ...table, columns: [{ name: 'amount', type: 'DOUBLE' }], quality: REPORT }],
  },
  'recipe run COMPLETE with the column-lineage facet': {
    ...base,
    kind: 'recipe-run',
    eventType: 'COMPLETE',
    inputs: [
      {
        ...table,
        columns: [
          { name: 'amount', type: 'DOUBLE' },
          { name: 'name', type: 'VARCHAR' },
        ],
      },
    ],
    outputs: [
      {
        ...node,
        columns: [
          { name: 'name', type: 'VARCHAR' },
          { name: 'total', type: 'DOUBLE' },
        ],
        lineage: {
          fields: new Map([
            ['name', [{ dataset: table, field: 'name', how: 'copied' }]],
            ['total', [{ dataset: table, field: 'amount', how: 'aggregated' }]],
          ]),
          dataset: [{ dataset: table, field: 'name', how: 'group_by' }],
        },
      },
    ],
  },
  'export FAIL with the error facet': {
    ...base,
    kind: 'export',
    eventType: 'FAIL',
    inputs: [node],
    outputs: [{ namespace: 's3://exports', name: 'out/result.csv' }],
    error: { code: '30-1100', message: 'The destination refused the write' },
  },
  'export ABORT naming no dataset (a cancel: its START named them)': {
    ...base,
    kind: 'direct-export',
    eventType: 'ABORT',
    inputs: [],
    outputs: [],
    error: { code: '10-444', message: 'The job has been aborted' },
  },
  'transfer START': {
    ...base,
    kind: 'transfer',
    eventType: 'START',
    inputs: [node],
    outputs: [{ namespace: 'pricing://127.0.0.1', name: 'projects/p/tables/t' }],
  },
};

describe.skipIf(!OPENLINEAGE_SCHEMAS_PRESENT)('run events against the official OpenLineage schemas', () => {
  const validator = OPENLINEAGE_SCHEMAS_PRESENT ? openLineageValidator() : undefined;

  it.each(Object.entries(EVENTS))('%s conforms', (_name, input) => {
    expect(validator!.problems(buildRunEvent(input))).toEqual([]);
  });

  it('the validator finds what the spec refuses', () => {
    const event = buildRunEvent(EVENTS['import START']!);
    expect(validator!.problems({ ...event, run: { runId: 'not-a-uuid' } }).join()).toContain('uuid');
    expect(validator!.problems({ ...event, eventType: 'DONE' }).length).toBeGreaterThan(0);
    // The facet is checked against its own schema too: an assertion needs `success`.
    const checked = buildRunEvent(EVENTS['import COMPLETE with the data-quality facet']!);
    const facet = checked.outputs[0]!.facets!.dataQualityAssertions!;
    const broken = { ...facet, assertions: [{ assertion: 'not_null' }] };
    const output = { ...checked.outputs[0]!, facets: { ...checked.outputs[0]!.facets, dataQualityAssertions: broken } };
    expect(validator!.problems({ ...checked, outputs: [output] }).join()).toContain('success');
  });
});

describe.runIf(!OPENLINEAGE_SCHEMAS_PRESENT)('without the official schemas', () => {
  it(OPENLINEAGE_SCHEMAS_ABSENT_NOTE, () => {
    console.warn(OPENLINEAGE_SCHEMAS_ABSENT_NOTE);
  });
});

describe('run events as the project builds them', () => {
  it('START and its end name one run', () => {
    const start = buildRunEvent(EVENTS['import START']!);
    const end = buildRunEvent({ ...EVENTS['import START']!, eventType: 'COMPLETE' });
    expect(start.run.runId).toBe(end.run.runId);
    expect(runIdOf('other')).not.toBe(start.run.runId);
  });

  it('the data-quality facet has each rule as an assertion, with counts but no row or value from the data', () => {
    const event = buildRunEvent(EVENTS['import COMPLETE with the data-quality facet']!);
    const facet = event.outputs[0]?.facets?.dataQualityAssertions;
    expect(facet?.assertions).toEqual([
      {
        assertion: 'not_null',
        success: false,
        severity: 'error',
        name: 'amount present',
        actual: '2',
        params: { rule_id: 7 },
      },
      {
        assertion: 'row_count_between',
        success: true,
        severity: 'warn',
        name: 'enough rows',
        actual: '20',
        params: { rule_id: 8 },
      },
      {
        assertion: 'freshness',
        success: false,
        severity: 'warn',
        name: 'recent',
        params: { rule_id: 9, error_code: '20-1031' },
      },
    ]);
    expect(JSON.stringify(event)).not.toMatch(/row data|2020-01-01|secret_note/);
    // Without rules run, no facet.
    expect(buildRunEvent(EVENTS['import START']!).outputs[0]?.facets?.dataQualityAssertions).toBeUndefined();
  });

  it('column lineage uses OpenLineage’s transformations', () => {
    const event = buildRunEvent(EVENTS['recipe run COMPLETE with the column-lineage facet']!);
    const facet = event.outputs[0]?.facets?.columnLineage;
    expect(facet?.fields.total?.inputFields[0]?.transformations).toEqual([{ type: 'DIRECT', subtype: 'AGGREGATION' }]);
    expect(facet?.dataset?.[0]?.transformations).toEqual([{ type: 'INDIRECT', subtype: 'GROUP_BY' }]);
  });
});
