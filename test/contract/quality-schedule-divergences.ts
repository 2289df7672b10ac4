/**
 * Where the OpenAPI document cannot say what the service decides about data-quality rules and
 * schedules (test/contract/quality-schedule-bases.ts), each with the reason: the case's label
 * and which side refuses. The contract test (test/integration/api/contract.test.ts) merges
 * them into its KNOWN_DIVERGENCES and fails if one stops diverging that way.
 */

export interface Divergence {
  readonly refusedBy: 'service' | 'document';
  readonly reason: string;
}

const all = (labels: readonly string[], divergence: Divergence) =>
  Object.fromEntries(labels.map((label) => [label, divergence]));

/** Path ids other than the fixture's, and body ids other than the path's. */
const mismatchedIds = (operationId: string, idName: string) => [
  ...['1000', '1001', '100000', '9007199254740991'].map((id) => `${operationId}: path ${idName} = "${id}"`),
  ...['2', '1000', '1001', '9007199254740991'].map((id) => `${operationId}: body .id = ${id}`),
];

export const QUALITY_SCHEDULE_DIVERGENCES: Readonly<Record<string, Divergence>> = {
  ...all(
    [
      'createQualityRule: body .data_table_id = null',
      'createQualityRule: body .data_table_id removed',
      'createQualityRule: body no target',
      'createQualityRule: body a dataset without node',
      'createQualityRule: body a table and a dataset',
      'updateQualityRule: body .data_table_id = null',
      'updateQualityRule: body .data_table_id removed',
    ],
    {
      refusedBy: 'service',
      reason:
        'a rule has exactly one target, data_table_id or dataset_id with node_id (10-1400 naming the member): the document could say it only as a oneOf of two shapes under each of the eight kinds, whose failures zod would report as one unnamed union error',
    },
  ),
  'createQualityRule: body range without bounds': {
    refusedBy: 'service',
    reason: 'a range needs min or max (10-1400 naming min): an anyOf the document could hold, for the same reason',
  },
  'createQualityRule: body range with crossed bounds': {
    refusedBy: 'service',
    reason: 'max must not be less than min: a comparison of two members is beyond JSON Schema',
  },
  'createQualityRule: body unique over a column twice': {
    refusedBy: 'service',
    reason: 'columns are compared ignoring case, as DuckDB names them; uniqueItems compares them as sent',
  },
  'createQualityRule: body a node of a dataset': {
    refusedBy: 'service',
    reason:
      'node_id must be a recipe node of the dataset in some graph version (the fixture node is a TABLE node; 10-1400 naming node_id), which only the stored graph says',
  },
  ...all([...mismatchedIds('updateQualityRule', 'rule_id'), ...mismatchedIds('mergeQualityRule', 'rule_id')], {
    refusedBy: 'service',
    reason: 'the body id must equal the rule_id of the path: beyond JSON Schema',
  }),
  ...all([...mismatchedIds('updateSchedule', 'schedule_id'), ...mismatchedIds('mergeSchedule', 'schedule_id')], {
    refusedBy: 'service',
    reason: 'the body id must equal the schedule_id of the path: beyond JSON Schema',
  }),
  ...all(['mergeQualityRule: body (body).__proto__ = 1', 'mergeSchedule: body (body).__proto__ = 1'], {
    refusedBy: 'document',
    reason: 'as for the other merge patches: the service drops __proto__, the document refuses it',
  }),
  'createSchedule: body a cron past its bounds': {
    refusedBy: 'service',
    reason:
      'the document gives a cron its shape (five fields of numbers, names and * ? , - /); each field’s values and ranges are the cron reader’s (hour 25)',
  },
  ...all(
    [
      'createSchedule: body an unknown time zone',
      'createSchedule: body .trigger.time_zone = another word',
      'updateSchedule: body .trigger.time_zone = another word',
    ],
    {
      refusedBy: 'service',
      reason:
        'the document gives a time zone the shape of an IANA name; whether the zone exists is the time zone data of the runtime',
    },
  ),
};
