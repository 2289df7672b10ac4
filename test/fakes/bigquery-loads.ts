/**
 * Load jobs of the BigQuery fake, as @google-cloud/bigquery 8 sends them for Table#createLoadJob
 * with a local file: POST /upload/bigquery/v2/projects/{p}/jobs?uploadType=multipart, a
 * multipart/related body of the job resource (JSON) and the data. The fake reads
 * newline-delimited JSON with a declared schema (what the service's writer sends) into a table
 * of BigQuery's text values; any other load is refused with `invalid`, as BigQuery refuses a
 * file it cannot read.
 */
import type { FakeField, FakeTable, FakeValue } from './bigquery-tables';

/** The configuration.load of a job resource, as far as the fake reads it. */
export interface LoadConfiguration {
  readonly destinationTable?: { readonly projectId?: string; readonly datasetId?: string; readonly tableId?: string };
  readonly sourceFormat?: string;
  readonly schema?: { readonly fields?: readonly FakeField[] };
  readonly writeDisposition?: string;
  readonly createDisposition?: string;
}

export interface LoadRequest {
  readonly configuration?: { readonly load?: LoadConfiguration };
  readonly jobReference?: { readonly jobId?: string; readonly location?: string };
}

export type LoadOutcome =
  { readonly table: FakeTable } | { readonly error: { readonly reason: string; readonly message: string } };

/** The two parts of a multipart/related upload (text: the fake reads JSON data only); the boundary is the body's first line. */
export function parseLoadUpload(body: string): { readonly request: LoadRequest; readonly data: string } | undefined {
  const boundary = /^--([^\r\n]+)\r\n/.exec(body)?.[1];
  if (!boundary) return undefined;
  const parts = body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => part.slice(part.indexOf('\r\n\r\n') + 4, part.endsWith('\r\n') ? -2 : undefined));
  if (parts.length !== 2) return undefined;
  return { request: JSON.parse(parts[0]!) as LoadRequest, data: parts[1]! };
}

/** A JSON value as BigQuery keeps it: its text (numbers and booleans included), or null. */
function textOf(value: unknown): FakeValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The table a load makes: WRITE_TRUNCATE replaces rows and schema, WRITE_APPEND adds rows to
 * an existing table of the same columns, WRITE_EMPTY refuses a table with rows. A row naming a
 * column the schema lacks fails the whole load (BigQuery's `invalid`), so nothing is written.
 */
export function loadTable(
  configuration: LoadConfiguration,
  data: string,
  existing: FakeTable | undefined,
): LoadOutcome {
  const invalid = (message: string): LoadOutcome => ({ error: { reason: 'invalid', message } });
  if (configuration.sourceFormat !== 'NEWLINE_DELIMITED_JSON')
    return invalid(`the fake loads NEWLINE_DELIMITED_JSON only, not ${configuration.sourceFormat}`);
  const schema = configuration.schema?.fields ?? existing?.schema;
  if (!schema) return invalid('No schema specified on job or table.');
  if (!existing && configuration.createDisposition === 'CREATE_NEVER')
    return { error: { reason: 'notFound', message: 'Not found: Table' } };
  const names = new Set(schema.map((field) => field.name));
  const rows: Record<string, FakeValue>[] = [];
  for (const [index, line] of data.split('\n').entries()) {
    if (line.trim() === '') continue;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    const unknown = Object.keys(parsed).find((name) => !names.has(name));
    if (unknown !== undefined)
      return invalid(
        `Error while reading data, error message: JSON parsing error in row starting at position ${index}: No such field: ${unknown}.`,
      );
    rows.push(Object.fromEntries(Object.entries(parsed).map(([name, value]) => [name, textOf(value)])));
  }
  switch (configuration.writeDisposition ?? 'WRITE_APPEND') {
    case 'WRITE_TRUNCATE':
      return { table: { schema, rows } };
    case 'WRITE_EMPTY':
      if ((existing?.rows.length ?? 0) > 0) return { error: { reason: 'duplicate', message: 'Already Exists: Table' } };
      return { table: { schema, rows } };
    default:
      return { table: { schema, rows: [...(existing?.rows ?? []), ...rows] } };
  }
}
