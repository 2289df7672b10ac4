import * as z from 'zod';

/**
 * OpenLineage run events (spec 2-0-2, https://openlineage.io/spec/2-0-2/OpenLineage.json) and
 * the facets the service sends, as the project's own zod schemas written from the spec: the
 * event builder (build.ts) answers these types, and a conformance test validates what it
 * builds against the official JSON schemas (test/unit/openlineage/conformance.test.ts).
 */

export const OPENLINEAGE_SCHEMA_URL = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';
/** Each facet's schema, as its JSON Schema's $id names it, and the definition within. */
export const FACET_SCHEMA_URLS = {
  schema: 'https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet',
  columnLineage:
    'https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet',
  errorMessage: 'https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet',
  jobType: 'https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet',
  dataQualityAssertions:
    'https://openlineage.io/spec/facets/1-1-0/DataQualityAssertionsDatasetFacet.json#/$defs/DataQualityAssertionsDatasetFacet',
} as const;

export const EVENT_TYPES = ['START', 'RUNNING', 'COMPLETE', 'ABORT', 'FAIL', 'OTHER'] as const;

const BaseFacet = { _producer: z.url(), _schemaURL: z.url() };

export const SchemaDatasetFacet = z.object({
  ...BaseFacet,
  fields: z.array(z.object({ name: z.string(), type: z.string().optional(), ordinal_position: z.int().optional() })),
});

/** DIRECT (IDENTITY, TRANSFORMATION, AGGREGATION) or INDIRECT (JOIN, FILTER, GROUP_BY, SORT, WINDOW, CONDITIONAL). */
export const Transformation = z.object({ type: z.enum(['DIRECT', 'INDIRECT']), subtype: z.string().optional() });

export const InputField = z.object({
  namespace: z.string(),
  name: z.string(),
  field: z.string(),
  transformations: z.array(Transformation).optional(),
});

export const ColumnLineageDatasetFacet = z.object({
  ...BaseFacet,
  fields: z.record(z.string(), z.object({ inputFields: z.array(InputField) })),
  dataset: z.array(InputField).optional(),
});

export const ErrorMessageRunFacet = z.object({
  ...BaseFacet,
  message: z.string(),
  programmingLanguage: z.string(),
});

export const JobTypeJobFacet = z.object({
  ...BaseFacet,
  processingType: z.literal('BATCH'),
  integration: z.string(),
  jobType: z.string(),
  /** How the job's events add up: ACCUMULATIVE, an end event may name no dataset (START named them). */
  emissionPattern: z
    .object({
      eventTrigger: z.enum(['EVENT_BASED', 'PERIODIC']),
      eventContentMode: z.enum(['ACCUMULATIVE', 'COMPLETE_SNAPSHOT']),
    })
    .optional(),
});

/** One data-quality rule as checked: its kind as `assertion`, whether it passed; never a row. */
export const DataQualityAssertion = z.object({
  assertion: z.string(),
  success: z.boolean(),
  column: z.string().optional(),
  severity: z.string().optional(),
  name: z.string().optional(),
  actual: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const DataQualityAssertionsDatasetFacet = z.object({
  ...BaseFacet,
  assertions: z.array(DataQualityAssertion),
});

const DatasetFacets = z.object({
  schema: SchemaDatasetFacet.optional(),
  columnLineage: ColumnLineageDatasetFacet.optional(),
  dataQualityAssertions: DataQualityAssertionsDatasetFacet.optional(),
});

export const LineageDataset = z.object({ namespace: z.string(), name: z.string(), facets: DatasetFacets.optional() });

export const RunEvent = z.object({
  eventTime: z.iso.datetime({ offset: true }),
  producer: z.url(),
  schemaURL: z.url(),
  eventType: z.enum(EVENT_TYPES),
  run: z.object({ runId: z.uuid(), facets: z.object({ errorMessage: ErrorMessageRunFacet.optional() }).optional() }),
  job: z.object({ namespace: z.string(), name: z.string(), facets: z.object({ jobType: JobTypeJobFacet }).optional() }),
  inputs: z.array(LineageDataset),
  outputs: z.array(LineageDataset),
});

export type RunEvent = z.infer<typeof RunEvent>;
export type LineageDataset = z.infer<typeof LineageDataset>;
export type InputField = z.infer<typeof InputField>;
export type DataQualityAssertion = z.infer<typeof DataQualityAssertion>;
export type EventType = (typeof EVENT_TYPES)[number];
