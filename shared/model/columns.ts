import * as z from 'zod';

/**
 * Columns, values and schema analyses of stored tables: what an import produces and what the
 * API shows. The thresholds behind the alerts live with the analysis
 * (shared/engine/schema-alerts.ts); this file only fixes the shapes.
 */

export const ColumnSchema = z
  .object({
    name: z.string(),
    type: z
      .string()
      .describe('DuckDB logical type name, e.g. BIGINT, DOUBLE, VARCHAR, DATE, TIMESTAMP, BOOLEAN, DECIMAL(18,3)'),
    nullable: z.boolean().describe('Whether the column may hold NULL; true for every imported CSV column'),
  })
  .meta({ id: 'ColumnSchema' });
export type ColumnSchema = z.infer<typeof ColumnSchema>;

/**
 * A cell as JSON: integers beyond ±(2^53 − 1), decimals, non-finite floats, dates,
 * timestamps (ISO 8601) and every other type travel as strings.
 */
export const DataValue = z.union([z.string(), z.number(), z.boolean(), z.null()]).meta({ id: 'DataValue' });
export type DataValue = z.infer<typeof DataValue>;

export const DataRow = z.record(z.string(), DataValue).meta({ id: 'DataRow' });
export type DataRow = z.infer<typeof DataRow>;

export const SCHEMA_ANALYSIS_DEPTHS = ['SHALLOW', 'FULL'] as const;
export const SchemaAnalysisDepth = z
  .enum(SCHEMA_ANALYSIS_DEPTHS)
  .describe(
    'SHALLOW: names, types and null counts; FULL: also distinct counts, ranges, statistics, value kinds and alerts',
  )
  .meta({ id: 'SchemaAnalysisDepth' });
export type SchemaAnalysisDepth = z.infer<typeof SchemaAnalysisDepth>;

const count = z.int().min(0);
const statistic = z.number().nullable();

export const ColumnQuantiles = z
  .object({ p05: statistic, p25: statistic, p50: statistic, p75: statistic, p95: statistic })
  .describe('Interpolated quantiles of the non-null values; null when there are none')
  .meta({ id: 'ColumnQuantiles' });
export type ColumnQuantiles = z.infer<typeof ColumnQuantiles>;

export const VALUE_KINDS = ['integer', 'decimal', 'boolean', 'date', 'timestamp', 'text'] as const;
export type ValueKind = (typeof VALUE_KINDS)[number];

export const ValueKinds = z
  .object({
    integer: count,
    decimal: count,
    boolean: count,
    date: count,
    timestamp: count,
    text: count,
  })
  .describe('Non-null values of a text column by what they look like (surrounding spaces ignored)')
  .meta({ id: 'ValueKinds' });
export type ValueKinds = z.infer<typeof ValueKinds>;

export const ColumnProfile = z
  .object({
    name: z.string(),
    type: z.string(),
    null_count: count,
    null_ratio: z.number().min(0).max(1).describe('null_count / row_count; 0 for an empty table'),
    distinct_count: count
      .optional()
      .describe('FULL: distinct non-null values; exact up to 1,000,000 rows, approximate (HyperLogLog) above'),
    min: DataValue.optional().describe(
      'FULL: smallest non-null value; null when there is none or the type has no order',
    ),
    max: DataValue.optional().describe(
      'FULL: largest non-null value; null when there is none or the type has no order',
    ),
    mean: statistic.optional().describe('FULL: mean of a numeric column; null otherwise'),
    std: statistic
      .optional()
      .describe('FULL: sample standard deviation of a numeric column; null otherwise or with fewer than 2 values'),
    quantiles: ColumnQuantiles.optional().describe('FULL, numeric columns only'),
    value_kinds: ValueKinds.optional().describe('FULL, VARCHAR columns only'),
  })
  .meta({ id: 'ColumnProfile' });
export type ColumnProfile = z.infer<typeof ColumnProfile>;

export const SCHEMA_ALERT_TYPES = [
  'ALL_NULL',
  'MOSTLY_NULL',
  'CONSTANT',
  'HIGH_CARDINALITY',
  'UNIQUE',
  'MIXED_TYPES',
] as const;
export type SchemaAlertType = (typeof SCHEMA_ALERT_TYPES)[number];

export const SchemaAlert = z
  .object({
    column: z.string(),
    type: z.enum(SCHEMA_ALERT_TYPES),
    message: z.string(),
    value: z.number().optional().describe('The measure that raised the alert (a ratio, or a distinct count)'),
  })
  .meta({ id: 'SchemaAlert' });
export type SchemaAlert = z.infer<typeof SchemaAlert>;

export const SchemaAnalysisResult = z
  .object({
    depth: SchemaAnalysisDepth,
    row_count: count,
    columns: z.array(ColumnProfile),
    alerts: z.array(SchemaAlert).describe('Always empty for SHALLOW'),
  })
  .meta({ id: 'SchemaAnalysisResult' });
export type SchemaAnalysisResult = z.infer<typeof SchemaAnalysisResult>;
