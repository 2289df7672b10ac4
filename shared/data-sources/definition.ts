import type { ConnectionData } from '../connections/items';
import { parseTableRef } from '../connectors/analytics-db/table-ref';
import { assertWithin, GCS_BUCKETS, parseBucketLocation, S3_BUCKETS, shownPath } from '../connectors/bucket-location';
import type { Entity } from '../db/entity-store';
import { AppError, validationError } from '../errors/app-error';
import type { ConnectionType } from '../model/connection';
import type { DataSourceCreateRequest, DataSourceType, DataSourceUpdateRequest } from '../model/data-source';
import { assertReadOnlyQuery } from './sql-statement';
import type { DataSourceData } from './items';

type Connection = Entity<ConnectionData>;

/** 10-1043: a data source, or a connection, of a type the operation does not read. */
export function unsupportedSourceType(type: string): AppError {
  return new AppError('10-1043', { params: [type] });
}

/** The connection types each kind reads through, and the refusal of any other. */
const FITS: Record<
  DataSourceType,
  { readonly types: readonly ConnectionType[]; readonly refusal: (connection: Connection) => AppError }
> = {
  bucket: {
    types: ['object_store', 'cloud_store'],
    refusal: (connection) => unsupportedSourceType(connection.data.type),
  },
  rdbms: { types: ['warehouse'], refusal: (connection) => new AppError('30-1007', { params: [connection.id] }) },
  delta_sharing: {
    types: ['delta_sharing'],
    refusal: (connection) => new AppError('30-3011', { params: [connection.id] }),
  },
  analytics_db: {
    types: ['analytics_db'],
    refusal: (connection) => new AppError('30-3001', { params: [connection.id] }),
  },
};

export function assertConnectionFits(type: DataSourceType, connection: Connection): void {
  if (!FITS[type].types.includes(connection.data.type)) throw FITS[type].refusal(connection);
}

/**
 * A bucket path names a folder ("<bucket>", "<bucket>/<folder>/") or, without a trailing
 * slash, one object, or the folder of that name when no such object exists (the import
 * decides, as S3 keys and prefixes do). So every segment, a file name included, follows the
 * folder rules, and the path read as a folder must lie inside the connection's restriction:
 * the same check the import makes, so what is accepted here is readable there.
 */
function checkBucketPath(path: string, connection: Connection): void {
  const rules = connection.data.type === 'object_store' ? S3_BUCKETS : GCS_BUCKETS;
  const location = parseBucketLocation(path, rules);
  const restriction = connection.data.settings.path_restriction;
  if (restriction) assertWithin(location, parseBucketLocation(restriction, rules), rules, shownPath(path, location));
}

/**
 * The rdbms rules shared by data sources and query tests: one read-only statement (30-1009,
 * checked locally before any connector call), and no warehouse other than the connection's
 * (30-1004). Warehouse names compare ignoring case, as the warehouse resolves unquoted names.
 */
export function checkRdbmsQuery(connection: Connection, query: string, warehouse: string | null | undefined): void {
  assertReadOnlyQuery(query);
  const pinned = connection.data.settings.warehouse;
  if (warehouse && pinned && warehouse.toLowerCase() !== pinned.toLowerCase())
    throw new AppError('30-1004', { params: [warehouse, pinned] });
}

/** A table reference inside the connection's project and, when it names one, its dataset. */
function checkTableRef(ref: string, connection: Connection): void {
  const { project, dataset } = parseTableRef(ref);
  // A service-account key's project was derived when the key was stored; workload identity names it.
  const connectionProject = connection.data.derived.project_id ?? connection.data.auth.project_id;
  if (connectionProject && project !== connectionProject)
    throw new AppError('30-1421', { params: [project, connectionProject] });
  const connectionDataset = connection.data.settings.dataset_id;
  if (connectionDataset && dataset !== connectionDataset)
    throw new AppError('30-1422', { params: [dataset, connectionDataset] });
}

const NO_KIND_FIELDS = {
  path: null,
  query: null,
  warehouse: null,
  share: null,
  schema: null,
  table: null,
  table_version: null,
  table_timestamp: null,
  table_ref: null,
} as const;

/**
 * Checks a create or update document against the connection it names and returns what is
 * stored: the kind must fit the connection's type, the connection must allow reading
 * (30-1708 names `subject`: the data source's id, or its name before it has one), and the
 * kind's fields must hold for that connection.
 */
export function dataSourceData(
  document: DataSourceCreateRequest | DataSourceUpdateRequest,
  connection: Connection,
  subject: number | string,
): DataSourceData {
  assertConnectionFits(document.type, connection);
  if (!connection.data.read) throw new AppError('30-1708', { params: [subject] });
  const common = {
    ...NO_KIND_FIELDS,
    name: document.name,
    description: document.description ?? null,
    tags: document.tags ?? null,
    connection_id: document.connection_id,
  };
  switch (document.type) {
    case 'bucket':
      checkBucketPath(document.path, connection);
      return { ...common, type: document.type, path: document.path };
    case 'rdbms':
      checkRdbmsQuery(connection, document.query, document.warehouse);
      return { ...common, type: document.type, query: document.query, warehouse: document.warehouse ?? null };
    case 'delta_sharing':
      if ((document.table_version ?? null) !== null && (document.table_timestamp ?? null) !== null)
        throw validationError({ table_timestamp: 'not with table_version: an import reads one version' });
      return {
        ...common,
        type: document.type,
        share: document.share,
        schema: document.schema,
        table: document.table,
        table_version: document.table_version ?? null,
        table_timestamp: document.table_timestamp ?? null,
      };
    case 'analytics_db':
      checkTableRef(document.table_ref, connection);
      return { ...common, type: document.type, table_ref: document.table_ref };
  }
}
