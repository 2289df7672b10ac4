/**
 * The valid requests of the data-quality rule and schedule operations (docs/data-quality.md,
 * docs/schedules.md), apart from test/contract/corpus.ts to keep each module small: a rule on
 * the fixture table and a schedule of the fixture dataset to read, update, pause and resume,
 * spares nothing depends on for the deletes, and bodies for each rule the document cannot
 * show (a rule's one target, a range's bounds, a cron, a time zone).
 */
import type { OperationId } from '../../functions/routes';
import { AUDIT_MEMBERS, echo, lockOf, type Base } from './request-base';
import type { JsonValue } from './variations';

/** The rule and schedule entities the corpus aims at, made beforehand. */
export interface QualityScheduleFixtures {
  readonly tableId: number;
  readonly versionNumber: number;
  readonly datasetId: number;
  /** A node of version 1 of the dataset (a TABLE node: its accept is refused once the request is valid). */
  readonly nodeId: number;
  readonly ruleId: number;
  readonly scheduleId: number;
  readonly spare: { readonly ruleId: number; readonly scheduleId: number };
  /** The entities as GET answers them: the bases of full updates. */
  readonly current: { readonly rule: JsonValue; readonly schedule: JsonValue };
}

const SEVERITIES = ['ERROR', 'info'];
const KINDS = ['unique', 'NOT_NULL', 'not-null'];
const TRIGGER_TYPES = ['rate', 'on_new_version', 'CRON'];

/** The valid request of each quality-rule operation. */
function qualityRuleBases(f: QualityScheduleFixtures): Partial<Readonly<Record<OperationId, Base>>> {
  const ruleId = { rule_id: String(f.ruleId) };
  const node = { dataset_id: String(f.datasetId), version_number: '1', node_id: String(f.nodeId) };
  const rule = {
    name: 'contract rule',
    description: 'a rule',
    tags: ['q'],
    data_table_id: f.tableId,
    severity: 'warn',
    kind: 'not_null',
    column: 'id',
  };
  const { data_table_id: _table, ...untargeted } = rule;
  const { column: _column, ...columnless } = rule;
  return {
    createQualityRule: {
      body: rule,
      enums: { severity: SEVERITIES, kind: KINDS },
      bodies: {
        'range with min only': { ...rule, kind: 'range', min: 0 },
        'range without bounds': { ...rule, kind: 'range' },
        'range with crossed bounds': { ...rule, kind: 'range', min: 5, max: 1 },
        'row count at most 10': { ...columnless, kind: 'row_count_between', max: 10 },
        'a node of a dataset': { ...untargeted, dataset_id: f.datasetId, node_id: f.nodeId },
        'a dataset without node': { ...untargeted, dataset_id: f.datasetId },
        'a table and a dataset': { ...rule, dataset_id: f.datasetId, node_id: f.nodeId },
        'no target': untargeted,
        'unique over two columns': { ...columnless, kind: 'unique', columns: ['id', 'name'] },
        'unique over a column twice': { ...columnless, kind: 'unique', columns: ['id', 'ID'] },
        'accepted values': { ...rule, kind: 'accepted_values', values: ['alpha', 'beta'] },
        'freshness of an hour': { ...rule, kind: 'freshness', max_age_seconds: 3600 },
        'a pattern': { ...rule, kind: 'pattern', pattern: '[a-z]+' },
        'custom SQL': { ...columnless, kind: 'custom_sql', sql: 'SELECT * FROM CurrentTable WHERE id < 0' },
        'custom SQL that writes': { ...columnless, kind: 'custom_sql', sql: 'DROP TABLE CurrentTable' },
      },
    },
    listQualityRules: { query: { limit: '5' } },
    getQualityRule: { params: ruleId },
    updateQualityRule: {
      params: ruleId,
      body: echo(f.current.rule, ...AUDIT_MEMBERS),
      enums: { severity: SEVERITIES },
    },
    mergeQualityRule: {
      params: ruleId,
      body: { id: f.ruleId, lock_version: lockOf(f.current.rule), kind: 'not_null', description: 'merged' },
      mediaType: 'application/merge-patch+json',
    },
    deleteQualityRule: { params: { rule_id: String(f.spare.ruleId) } },
    // The version passed no FAILED report: refused (90-1003) once the request is valid.
    acceptQualityFailure: {
      params: { data_table_id: String(f.tableId), version_number: String(f.versionNumber) },
      body: { reason: 'known' },
    },
    // A TABLE node has no output: refused once the request is valid.
    acceptNodeQualityFailure: { params: node, body: { reason: 'known', use_sample: false } },
    listNodeQualityChecks: { params: node, query: { limit: '5' } },
  };
}

/** The valid request of each schedule operation. */
function scheduleBases(f: QualityScheduleFixtures): Partial<Readonly<Record<OperationId, Base>>> {
  const scheduleId = { schedule_id: String(f.scheduleId) };
  const lock = { lock_version: lockOf(f.current.schedule) };
  const schedule = {
    name: 'contract schedule',
    description: 'a schedule',
    tags: ['s'],
    dataset_id: f.datasetId,
    // Paused: nothing of the corpus starts a build.
    trigger: { type: 'cron', expression: '0 6 * * *', time_zone: 'Europe/Paris' },
    graph_version: 'latest',
    overlap: 'skip',
    paused: true,
  };
  return {
    createSchedule: {
      body: schedule,
      enums: { type: TRIGGER_TYPES, graph_version: ['released', 'LATEST'], overlap: ['queue', 'wait'] },
      bodies: {
        'a rate': { ...schedule, trigger: { type: 'rate', every: 6, unit: 'hours' } },
        'a rate of 0': { ...schedule, trigger: { type: 'rate', every: 0, unit: 'hours' } },
        'a rate in weeks': { ...schedule, trigger: { type: 'rate', every: 1, unit: 'weeks' } },
        'on a new version': { ...schedule, trigger: { type: 'on_new_version', data_table_id: f.tableId } },
        'a cron of six fields': { ...schedule, trigger: { ...schedule.trigger, expression: '0 6 * * * *' } },
        'a cron past its bounds': { ...schedule, trigger: { ...schedule.trigger, expression: '0 25 * * *' } },
        'an unknown time zone': { ...schedule, trigger: { ...schedule.trigger, time_zone: 'Europe/Atlantis' } },
        'a cron without time zone': { ...schedule, trigger: { type: 'cron', expression: '*/15 * * * *' } },
      },
    },
    listSchedules: { query: { limit: '5' } },
    getSchedule: { params: scheduleId },
    updateSchedule: {
      params: scheduleId,
      body: echo(f.current.schedule, ...AUDIT_MEMBERS),
      enums: { overlap: ['queue', 'wait'] },
    },
    mergeSchedule: {
      params: scheduleId,
      body: { id: f.scheduleId, ...lock, description: 'merged', overlap: 'queue' },
      mediaType: 'application/merge-patch+json',
    },
    deleteSchedule: { params: { schedule_id: String(f.spare.scheduleId) } },
    pauseSchedule: { params: scheduleId, body: lock },
    resumeSchedule: { params: scheduleId, body: lock },
    listScheduleRuns: { params: scheduleId, query: { limit: '5' } },
  };
}

/** The valid requests of both domains. */
export function qualityScheduleBases(f: QualityScheduleFixtures): Partial<Readonly<Record<OperationId, Base>>> {
  return { ...qualityRuleBases(f), ...scheduleBases(f) };
}
