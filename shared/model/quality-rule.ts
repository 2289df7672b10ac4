import * as z from 'zod';
import { DataRow, DataValue } from './columns';
import {
  AuditFields,
  Description,
  EchoedAuditFields,
  EntityId,
  IdParameter,
  LockVersion,
  Name,
  Tags,
  User,
  listEnvelope,
} from './common';
import { documented, mergePatchOf } from './merge-patch-schema';

/**
 * Data-quality rules on data tables (docs/data-quality.md): what each kind checks, its
 * severity, and the report an import writes on the version it checked. One table of the
 * kinds' own fields is the single source of truth for requests, responses and what is stored.
 */

export const QUALITY_RULE_KINDS = [
  'not_null',
  'unique',
  'accepted_values',
  'range',
  'pattern',
  'row_count_between',
  'freshness',
  'custom_sql',
] as const;
export type QualityRuleKind = (typeof QUALITY_RULE_KINDS)[number];

/** warn: recorded only; error: the version may not be released, exported or transferred until accepted. */
export const QualitySeverity = z.enum(['warn', 'error']).meta({ id: 'QualitySeverity' });
export type QualitySeverity = z.infer<typeof QualitySeverity>;

/** A column of the checked version, as DuckDB names it (matched ignoring case, as DuckDB does). */
const Column = z.string().min(1).max(255).describe('A column of the data table');

/** The longest custom assertion: the recipe code limit (shared/model/recipe.ts). */
const MAX_SQL_LENGTH = 65_536;
/** Ten years: a freshness bound past it is a typo. */
const MAX_AGE_SECONDS = 10 * 366 * 24 * 3600;

const bound = z.number().refine(Number.isFinite, { error: 'must be a finite number' }).nullable().optional();
const countBound = z.int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional();

/** What each kind adds to the common fields. */
const KIND_FIELDS = {
  not_null: { column: Column },
  unique: {
    columns: z
      .array(Column)
      .min(1)
      .max(16)
      .refine((columns) => new Set(columns.map((column) => column.toLowerCase())).size === columns.length, {
        error: 'must not repeat a column',
      })
      .describe('The key: rows whose values in these columns (none null) appear on another row fail'),
  },
  accepted_values: {
    column: Column,
    values: z
      .array(z.string().max(1024))
      .min(1)
      .max(1000)
      .describe('The values allowed, compared with the column as text (CAST AS VARCHAR); nulls pass'),
  },
  range: {
    column: Column,
    min: bound.describe('Smallest value allowed (inclusive); nulls pass'),
    max: bound.describe('Largest value allowed (inclusive)'),
  },
  pattern: {
    column: Column,
    pattern: z
      .string()
      .min(1)
      .max(1000)
      .describe('An RE2 regular expression the whole value (as text) must match; nulls pass'),
  },
  row_count_between: {
    min: countBound.describe('Fewest rows allowed (inclusive)'),
    max: countBound.describe('Most rows allowed (inclusive)'),
  },
  freshness: {
    column: Column.describe('A DATE or TIMESTAMP column'),
    max_age_seconds: z
      .int()
      .min(1)
      .max(MAX_AGE_SECONDS)
      .describe('The newest value may be at most this old when the version is checked'),
  },
  custom_sql: {
    sql: z
      .string()
      .min(1)
      .max(MAX_SQL_LENGTH)
      .describe(
        'A DuckDB SELECT over the version, named CurrentTable, that returns the failing rows: the rule passes when it returns none. Checked by the recipe SQL analyzer when saved',
      ),
  },
} satisfies Record<QualityRuleKind, z.ZodRawShape>;

/** The bounds of range and row_count_between: at least one, and not crossed; 10-1400 names the field. */
function checkBounds(rule: { readonly min?: number | null; readonly max?: number | null }, context: z.RefinementCtx) {
  const { min, max } = rule;
  if ((min === undefined || min === null) && (max === undefined || max === null))
    context.addIssue({ code: 'custom', path: ['min'], message: 'min or max is required' });
  else if (typeof min === 'number' && typeof max === 'number' && min > max)
    context.addIssue({ code: 'custom', path: ['max'], message: 'must not be less than min' });
}

const BOUNDED: ReadonlySet<QualityRuleKind> = new Set(['range', 'row_count_between']);

/**
 * What a rule checks: a data table's imports (data_table_id), or a recipe node's runs
 * (dataset_id and node_id: the node of that id in every graph version of the dataset, as a
 * clone keeps node ids). Exactly one of the two; 10-1400 names the field otherwise.
 */
const target = {
  data_table_id: EntityId.nullable().optional().describe('The data table whose imports the rule checks'),
  dataset_id: EntityId.nullable()
    .optional()
    .describe('With node_id: the dataset whose recipe node’s runs the rule checks'),
  node_id: EntityId.nullable().optional().describe('With dataset_id: the recipe node whose runs the rule checks'),
};

/** Exactly one target: a data table, or a dataset's recipe node. */
function checkTarget(
  rule: {
    readonly data_table_id?: number | null;
    readonly dataset_id?: number | null;
    readonly node_id?: number | null;
  },
  context: z.RefinementCtx,
) {
  const table = typeof rule.data_table_id === 'number';
  const dataset = typeof rule.dataset_id === 'number';
  const node = typeof rule.node_id === 'number';
  if (table && (dataset || node))
    context.addIssue({
      code: 'custom',
      path: [dataset ? 'dataset_id' : 'node_id'],
      message: 'must not be given with data_table_id',
    });
  else if (!table && !dataset && !node)
    context.addIssue({
      code: 'custom',
      path: ['data_table_id'],
      message: 'data_table_id, or dataset_id and node_id, is required',
    });
  else if (!table && dataset !== node)
    context.addIssue({
      code: 'custom',
      path: [dataset ? 'node_id' : 'dataset_id'],
      message: 'is required with ' + (dataset ? 'dataset_id' : 'node_id'),
    });
}

const common = {
  name: Name,
  description: Description,
  tags: Tags,
  ...target,
  severity: QualitySeverity,
};

function kindSchemas<const K extends QualityRuleKind>(kind: K) {
  const fields = KIND_FIELDS[kind];
  const label = kind
    .split('_')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  const bounded = <T extends z.ZodObject>(schema: T): T =>
    BOUNDED.has(kind) ? schema.superRefine((rule, context) => checkBounds(rule, context)) : schema;
  // A request names its target; a definition (what the engine receives) does not.
  const refined = <T extends z.ZodObject>(schema: T): T =>
    bounded(schema).superRefine((rule, context) => checkTarget(rule, context));
  return {
    definition: bounded(z.strictObject({ kind: z.literal(kind), ...fields })),
    create: refined(z.strictObject({ kind: z.literal(kind), ...common, ...fields })).meta({
      id: `${label}QualityRuleCreateRequest`,
    }),
    update: refined(
      z.strictObject({
        id: EntityId,
        lock_version: LockVersion,
        kind: z.literal(kind),
        ...common,
        ...fields,
        ...EchoedAuditFields,
      }),
    ).meta({ id: `${label}QualityRuleUpdateRequest` }),
    response: z
      .object({
        id: EntityId,
        lock_version: LockVersion,
        kind: z.literal(kind),
        name: Name,
        description: Description,
        tags: Tags,
        data_table_id: EntityId.nullable(),
        dataset_id: EntityId.nullable(),
        node_id: EntityId.nullable(),
        severity: QualitySeverity,
        ...fields,
        ...AuditFields,
      })
      .meta({ id: `${label}QualityRule` }),
  };
}

const KINDS = {
  not_null: kindSchemas('not_null'),
  unique: kindSchemas('unique'),
  accepted_values: kindSchemas('accepted_values'),
  range: kindSchemas('range'),
  pattern: kindSchemas('pattern'),
  row_count_between: kindSchemas('row_count_between'),
  freshness: kindSchemas('freshness'),
  custom_sql: kindSchemas('custom_sql'),
};

type Part = 'definition' | 'create' | 'update' | 'response';
const options = <P extends Part>(part: P) =>
  [
    KINDS.not_null[part],
    KINDS.unique[part],
    KINDS.accepted_values[part],
    KINDS.range[part],
    KINDS.pattern[part],
    KINDS.row_count_between[part],
    KINDS.freshness[part],
    KINDS.custom_sql[part],
  ] as const;

/** What a rule checks: its kind and the kind's own fields, as stored and as the engine receives it. */
export const QualityRuleDefinition = z.discriminatedUnion('kind', options('definition'));
export type QualityRuleDefinition = z.output<typeof QualityRuleDefinition>;

/** The fields of a kind, as a stored rule's definition is taken from a request. */
export const KIND_FIELD_NAMES = Object.fromEntries(
  QUALITY_RULE_KINDS.map((kind) => [kind, Object.keys(KIND_FIELDS[kind])]),
) as unknown as Readonly<Record<QualityRuleKind, readonly string[]>>;

export const QualityRuleCreateRequest = z
  .discriminatedUnion('kind', options('create'))
  .meta({ id: 'QualityRuleCreateRequest' });
export const QualityRuleUpdateRequest = z
  .discriminatedUnion('kind', options('update'))
  .meta({ id: 'QualityRuleUpdateRequest' });
export const QualityRuleResponse = z.discriminatedUnion('kind', options('response')).meta({ id: 'QualityRule' });
export const QualityRuleList = listEnvelope(QualityRuleResponse, 'QualityRuleList');

/** Merge (PATCH): RFC 7396 over the update document; the merged document is validated as a full update. */
export const QualityRuleMergePatch = documented(
  z.looseObject({ id: EntityId, lock_version: LockVersion, kind: z.enum(QUALITY_RULE_KINDS) }),
  mergePatchOf(QualityRuleUpdateRequest, ['id', 'lock_version', 'kind']).meta({
    id: 'QualityRuleMergePatch',
    description:
      'RFC 7396 merge patch of QualityRuleUpdateRequest: id, lock_version and kind are required, every other member optional; null removes an optional member',
  }),
);

export const QualityRuleIdParams = z.strictObject({ rule_id: IdParameter });

export type QualityRuleCreateRequest = z.output<typeof QualityRuleCreateRequest>;
export type QualityRuleUpdateRequest = z.output<typeof QualityRuleUpdateRequest>;
export type QualityRuleResponse = z.input<typeof QualityRuleResponse>;

/** Why a rule could not be checked (a column the version lacks: 20-1031; an assertion that failed to run). */
export const QualityCheckError = z.object({ code: z.string(), message: z.string() }).meta({ id: 'QualityCheckError' });

/** What the engine found for one rule. */
export const QualityRuleOutcome = z.object({
  rule_id: z.int(),
  passed: z.boolean(),
  failing_row_count: z
    .int()
    .nullable()
    .describe('Rows that break the rule; null for rules on the whole table (row_count_between, freshness)'),
  observed: DataValue.describe('row_count_between: the row count; freshness: the newest value (UTC); else null'),
  sample_rows: z.array(DataRow).describe('Up to 5 failing rows'),
  duration_ms: z.number().min(0),
  error: QualityCheckError.nullable(),
});
export type QualityRuleOutcome = z.infer<typeof QualityRuleOutcome>;

export const QualityRuleResult = QualityRuleOutcome.extend({
  rule_name: z.string(),
  kind: z.enum(QUALITY_RULE_KINDS),
  severity: QualitySeverity,
}).meta({ id: 'QualityRuleResult' });
export type QualityRuleResult = z.infer<typeof QualityRuleResult>;

export const QualityAcceptance = z
  .object({ by: User, date: z.iso.datetime(), reason: z.string().nullable() })
  .meta({ id: 'QualityAcceptance' });
export type QualityAcceptance = z.infer<typeof QualityAcceptance>;

/**
 * The data-quality report of a version, written by its import: PASSED, WARNED (only warn
 * rules failed) or FAILED (an error rule failed: refused for release, export and transfer
 * with 90-1002 until accepted).
 */
export const QualityReport = z
  .object({
    status: z.enum(['PASSED', 'WARNED', 'FAILED']),
    checked_date: z.iso.datetime(),
    duration_ms: z.number().min(0),
    results: z.array(QualityRuleResult),
    accepted: QualityAcceptance.nullable(),
  })
  .meta({ id: 'QualityReport' });
export type QualityReport = z.infer<typeof QualityReport>;

export const QualityAcceptRequest = z
  .strictObject({ reason: z.string().trim().min(1).max(1000).nullable().optional() })
  .meta({ id: 'QualityAcceptRequest' });

/**
 * One data-quality check of a recipe node's output (docs/data-quality.md): the run that wrote
 * it, which output (sample or full), and the report. A node's history keeps its newest checks
 * per graph version; its current output's report is also in the node's run status.
 */
export const NodeQualityCheck = QualityReport.extend({
  dataset_id: z.int(),
  version_number: z.int(),
  node_id: z.int(),
  run_id: z.string().describe('The run (job) that wrote the output and checked it'),
  use_sample: z.boolean().describe('Whether the output checked was the run on samples'),
}).meta({ id: 'NodeQualityCheck' });
export type NodeQualityCheck = z.infer<typeof NodeQualityCheck>;

export const NodeQualityCheckList = listEnvelope(NodeQualityCheck, 'NodeQualityCheckList');

/** What a node's check history can be filtered and sorted by (docs/list-query.md). */
export const NODE_QUALITY_CHECK_LIST_FIELDS = {
  checked_date: 'datetime',
  status: 'string',
  use_sample: 'boolean',
  run_id: 'string',
} as const;

export const NodeQualityAcceptRequest = QualityAcceptRequest.extend({
  use_sample: z
    .boolean()
    .optional()
    .describe('Which output’s report: the run on samples, or (false, the default) the run on all rows'),
}).meta({ id: 'NodeQualityAcceptRequest' });
