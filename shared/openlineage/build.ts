import { createHash } from 'node:crypto';
import { isDirect, type How } from '../model/lineage-dependencies';
import type { DatasetName } from './naming';
import type { QualityReport, QualityRuleResult } from '../model/quality-rule';
import {
  FACET_SCHEMA_URLS,
  OPENLINEAGE_SCHEMA_URL,
  RunEvent,
  type DataQualityAssertion,
  type EventType,
  type InputField,
  type LineageDataset,
} from './events';

/**
 * Run events built from what a job read and wrote (datasets.ts): pure, so the unit and
 * conformance tests build the very events the jobs send. An event carries names, column
 * names and types, and catalogue codes; never a row, a secret, a query's text or a URL with
 * credentials (docs/lineage.md).
 */

/** The producer every event and facet names: this service's source. */
export const PRODUCER = 'https://github.com/data-preparation-service/data-preparation-service';

/** A column of a dataset: its name and DuckDB type. */
export interface EventColumn {
  readonly name: string;
  readonly type?: string;
}

/** An output column's inputs: a dataset's column and how it was used (shared/model/lineage-dependencies.ts). */
export interface ColumnSource {
  readonly dataset: DatasetName;
  readonly field: string;
  readonly how: How;
}

export interface EventDataset extends DatasetName {
  readonly columns?: readonly EventColumn[];
  /** Output datasets: each column's inputs, and the inputs that decide every row. */
  readonly lineage?: {
    readonly fields: ReadonlyMap<string, readonly ColumnSource[]>;
    readonly dataset: readonly ColumnSource[];
  };
  /** The data-quality report the job's check of this dataset wrote (docs/data-quality.md), when rules ran. */
  readonly quality?: QualityReport;
}

export interface RunEventInput {
  readonly eventType: EventType;
  /** The job's id: the run id is derived from it, so START and its end name one run. */
  readonly jobId: string;
  /** The job kind (import, recipe-run, export, transfer...): the job's name, with the tenant. */
  readonly kind: string;
  readonly tenantId: string;
  readonly namespace: string;
  readonly inputs: readonly EventDataset[];
  readonly outputs: readonly EventDataset[];
  /** FAIL: the catalogue code and its message, as the job's execution shows them. */
  readonly error?: { readonly code: string; readonly message: string };
  readonly time?: Date;
}

/** A UUID (version 8: custom) derived from the job id: the same for every event of one run. */
export function runIdOf(jobId: string): string {
  const hex = createHash('sha256').update(`openlineage-run:${jobId}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const facet = (schemaURL: string) => ({ _producer: PRODUCER, _schemaURL: schemaURL });

/** OpenLineage's transformation of a dependency kind: DIRECT IDENTITY/TRANSFORMATION/AGGREGATION, else INDIRECT. */
export function transformationOf(how: How): { type: 'DIRECT' | 'INDIRECT'; subtype: string } {
  const subtype: Record<How, string> = {
    copied: 'IDENTITY',
    transformed: 'TRANSFORMATION',
    aggregated: 'AGGREGATION',
    window: 'WINDOW',
    conditional: 'CONDITIONAL',
    filter: 'FILTER',
    join: 'JOIN',
    group_by: 'GROUP_BY',
    sort: 'SORT',
  };
  return { type: isDirect(how) ? 'DIRECT' : 'INDIRECT', subtype: subtype[how] };
}

const inputField = ({ dataset, field, how }: ColumnSource): InputField => ({
  namespace: dataset.namespace,
  name: dataset.name,
  field,
  transformations: [transformationOf(how)],
});

/**
 * A rule's result as an assertion: its kind, whether it passed, its severity and name, and
 * counts (failing rows, a row count). Never its sample rows, nor a value read from the data
 * (a freshness rule's newest value), nor a custom assertion's SQL.
 */
export function assertionOf(result: QualityRuleResult): DataQualityAssertion {
  const counted = result.kind === 'row_count_between' && typeof result.observed === 'number';
  const actual = counted ? result.observed : result.failing_row_count;
  return {
    assertion: result.kind,
    success: result.passed,
    severity: result.severity,
    name: result.rule_name,
    ...(actual === null || actual === undefined ? {} : { actual: String(actual) }),
    params: { rule_id: result.rule_id, ...(result.error ? { error_code: result.error.code } : {}) },
  };
}

function datasetOf(dataset: EventDataset): LineageDataset {
  const facets: NonNullable<LineageDataset['facets']> = {};
  if (dataset.columns)
    facets.schema = {
      ...facet(FACET_SCHEMA_URLS.schema),
      fields: dataset.columns.map((column, index) => ({
        name: column.name,
        ...(column.type === undefined ? {} : { type: column.type }),
        ordinal_position: index + 1,
      })),
    };
  if (dataset.lineage)
    facets.columnLineage = {
      ...facet(FACET_SCHEMA_URLS.columnLineage),
      fields: Object.fromEntries(
        [...dataset.lineage.fields].map(([name, sources]) => [name, { inputFields: sources.map(inputField) }]),
      ),
      dataset: dataset.lineage.dataset.map(inputField),
    };
  if (dataset.quality)
    facets.dataQualityAssertions = {
      ...facet(FACET_SCHEMA_URLS.dataQualityAssertions),
      assertions: dataset.quality.results.map(assertionOf),
    };
  return { namespace: dataset.namespace, name: dataset.name, ...(Object.keys(facets).length > 0 ? { facets } : {}) };
}

/** One run event, checked against the project's schema of it before it leaves. */
export function buildRunEvent(input: RunEventInput): RunEvent {
  return RunEvent.parse({
    eventTime: (input.time ?? new Date()).toISOString(),
    producer: PRODUCER,
    schemaURL: OPENLINEAGE_SCHEMA_URL,
    eventType: input.eventType,
    run: {
      runId: runIdOf(input.jobId),
      ...(input.error
        ? {
            facets: {
              errorMessage: {
                ...facet(FACET_SCHEMA_URLS.errorMessage),
                message: `${input.error.code}: ${input.error.message}`,
                programmingLanguage: 'TypeScript',
              },
            },
          }
        : {}),
    },
    job: {
      namespace: input.namespace,
      name: `${input.tenantId}.${input.kind}`,
      facets: {
        jobType: {
          ...facet(FACET_SCHEMA_URLS.jobType),
          processingType: 'BATCH',
          integration: 'DPS',
          jobType: input.kind.toUpperCase(),
          // An end event may name no dataset (a cancel or an abandoned job: job-end.ts); START named them.
          emissionPattern: { eventTrigger: 'EVENT_BASED', eventContentMode: 'ACCUMULATIVE' },
        },
      },
    },
    inputs: input.inputs.map(datasetOf),
    outputs: input.outputs.map(datasetOf),
  });
}
