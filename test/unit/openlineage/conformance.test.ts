/**
 * The run events the service builds (shared/openlineage/build.ts), for every kind of job that
 * sends them and each way it ends, validated against the official OpenLineage schemas with a
 * JSON Schema validator (Ajv, draft 2020-12). The schemas are read from ../shared/openlineage-schemas;
 * where a clone stands alone this file says so and skips.
 */
import { describe, expect, it } from 'vitest';
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

  it('column lineage uses OpenLineage’s transformations', () => {
    const event = buildRunEvent(EVENTS['recipe run COMPLETE with the column-lineage facet']!);
    const facet = event.outputs[0]?.facets?.columnLineage;
    expect(facet?.fields.total?.inputFields[0]?.transformations).toEqual([{ type: 'DIRECT', subtype: 'AGGREGATION' }]);
    expect(facet?.dataset?.[0]?.transformations).toEqual([{ type: 'INDIRECT', subtype: 'GROUP_BY' }]);
  });
});
