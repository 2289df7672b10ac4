import type { ConnectionData } from '../connections/store';
import { assertWithin, GCS_BUCKETS, parseBucketLocation, S3_BUCKETS } from '../connectors/bucket-location';
import type { Entity } from '../db/entity-store';
import { AppError, validationError } from '../errors/app-error';
import type { ConnectionType } from '../model/connection';
import { objectKeyProblem } from '../model/object-key';
import type { TargetData } from './items';

/**
 * Where a target's data goes, and its grammar (docs/targets.md): a folder of a bucket, a
 * table, or a pricing project and table path. Each may hold dynamic parameters, replaced
 * when an export runs (renderDestination).
 */

/** The dynamic parameters a destination may hold, with what each becomes. */
export const DYNAMIC_PARAMETERS = ['dataset_name', 'version', 'date', 'time', 'export_id'] as const;
export type DynamicParameter = (typeof DYNAMIC_PARAMETERS)[number];

/** Longest table name each table-holding connection type accepts (Snowflake identifiers; BigQuery table ids). */
export const TABLE_NAME_LIMITS: Readonly<Partial<Record<ConnectionType, number>>> = {
  warehouse: 255,
  analytics_db: 1024,
};

const KNOWN = new Set<string>(DYNAMIC_PARAMETERS);
/** A parameter token, or a brace that does not open or close one (reported up to the next brace or the end). */
const BRACES = /\{[^{}]*\}|\{[^{}]*|\}/g;

/** 30-5005 for the first `{...}` that is not a documented parameter, or a stray brace. */
export function assertKnownParameters(text: string): void {
  for (const [token] of text.matchAll(BRACES)) {
    const name = token.startsWith('{') && token.endsWith('}') ? token.slice(1, -1) : undefined;
    if (name === undefined || !KNOWN.has(name)) throw new AppError('30-5005', { params: [token] });
  }
}

const withoutParameters = (text: string): string => text.replace(BRACES, '');

/**
 * A table name: at most the connection type's limit (30-5004), not starting with an
 * underscore or space (30-5007), known parameters only (30-5005), and otherwise ASCII letters,
 * digits and underscores (30-5006): the names every supported warehouse accepts unquoted.
 */
export function checkTableName(name: string, connectionType: ConnectionType): void {
  const limit = TABLE_NAME_LIMITS[connectionType] ?? 255;
  if (name.length > limit) throw new AppError('30-5004', { params: [limit] });
  if (name.startsWith('_') || name.startsWith(' ')) throw new AppError('30-5007', { params: [name] });
  assertKnownParameters(name);
  if (!/^[A-Za-z0-9_]*$/.test(withoutParameters(name))) throw new AppError('30-5006');
}

/** Empty segments (two backslashes in a row) name nothing in a pricing system. */
function checkSegments(field: string, path: string): void {
  if (path.includes('\\\\'))
    throw validationError({ [field]: 'must not contain an empty segment (two backslashes in a row)' });
}

/** A pricing project path "\A\B" (30-5008) and a table path "C\D\" (30-5009) inside it. */
export function checkPricingPaths(projectPath: string, tablePath: string): void {
  if (!projectPath.startsWith('\\') || projectPath.endsWith('\\')) throw new AppError('30-5008');
  if (tablePath.startsWith('\\') || !tablePath.endsWith('\\')) throw new AppError('30-5009');
  assertKnownParameters(projectPath);
  assertKnownParameters(tablePath);
  checkSegments('project_path', projectPath);
  checkSegments('table_path', tablePath);
}

/**
 * A folder of the connection's store, by the rules data-source paths follow (bucket naming,
 * segments, inside the path restriction): parameters may stand in folder names, not in the
 * bucket's, and a folder holding one is inside the restriction only if its fixed part is.
 */
export function checkFolderPath(path: string, connection: Entity<ConnectionData>): void {
  assertKnownParameters(path);
  const rules = connection.data.type === 'cloud_store' ? GCS_BUCKETS : S3_BUCKETS;
  const location = parseBucketLocation(path, rules);
  // Again here, after the parameters are replaced: a dataset name may make a folder too long.
  const problem = objectKeyProblem(location.prefix);
  if (problem !== undefined) throw validationError({ path: problem });
  const restriction = connection.data.settings.path_restriction;
  if (restriction) assertWithin(location, parseBucketLocation(restriction, rules), rules);
}

/** Checks a target's destination fields against the connection it writes through. */
export function checkDestination(data: TargetData, connection: Entity<ConnectionData>): void {
  switch (data.type) {
    case 'bucket':
      return checkFolderPath(data.path ?? '', connection);
    case 'table':
      return checkTableName(data.table_name ?? '', connection.data.type);
    case 'pricing':
      return checkPricingPaths(data.project_path ?? '', data.table_path ?? '');
  }
}

/** What the parameters stand for in one export. */
export interface DynamicValues {
  /** Name of the exported dataset or data table. */
  readonly dataset_name: string;
  /** The exported version's number. */
  readonly version: number;
  readonly export_id: number;
  /** When the export started; {date} is its UTC date YYYYMMDD, {time} its UTC time HHMMSS. */
  readonly started: Date;
}

/** Per field kind, the characters a value may not bring in: they become underscores. */
const UNSAFE = {
  table: /[^A-Za-z0-9_]/g,
  folder: /[/\\{}\u0000-\u001f\u007f]/g,
  pricing: /[\\{}\u0000-\u001f\u007f]/g,
} as const;

function substitute(template: string, values: DynamicValues, unsafe: RegExp): string {
  const iso = values.started.toISOString();
  const text: Record<DynamicParameter, string> = {
    dataset_name: values.dataset_name,
    version: String(values.version),
    date: iso.slice(0, 10).replaceAll('-', ''),
    time: iso.slice(11, 19).replaceAll(':', ''),
    export_id: String(values.export_id),
  };
  return template.replace(/\{([a-z_]+)\}/g, (_token, name: DynamicParameter) => {
    const value = text[name].replace(unsafe, '_');
    // A value alone in a folder segment must not read as "." or "..".
    return /^\.+$/.test(value) ? value.replaceAll('.', '_') : value;
  });
}

/**
 * The target's destination for one export: parameters replaced (characters a destination
 * cannot hold become underscores), then checked again against the connection as it is now,
 * so a name that grew too long (30-5004) or a folder outside a narrowed restriction fails
 * the export instead of writing elsewhere.
 */
export function renderDestination(
  data: TargetData,
  connection: Entity<ConnectionData>,
  values: DynamicValues,
): TargetData {
  const rendered: TargetData = {
    ...data,
    path: data.path === null ? null : substitute(data.path, values, UNSAFE.folder),
    table_name: data.table_name === null ? null : substitute(data.table_name, values, UNSAFE.table),
    project_path: data.project_path === null ? null : substitute(data.project_path, values, UNSAFE.pricing),
    table_path: data.table_path === null ? null : substitute(data.table_path, values, UNSAFE.pricing),
  };
  checkDestination(rendered, connection);
  return rendered;
}
