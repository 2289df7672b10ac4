/**
 * The write capability of the connector interface: where an export's data goes. Each
 * connection type that receives exports has its writer module (object-store/write.ts,
 * cloud-store/write.ts, analytics-db/write.ts, warehouse/write.ts), chosen here; the export
 * worker only picks the writer and hands it the file. Every writer keeps the same promise:
 * nothing is visible under the final name (object or table rows) until all of the export is
 * written, and a failure leaves nothing there.
 */
import { CONNECTOR_TOGGLES } from '../features/catalogue';
import { featureOff } from '../features/store';
import type { ExportFormat } from '../model/export';
import { GCS_BUCKETS, S3_BUCKETS, parseBucketLocation } from './bucket-location';
import type { SourceConnection } from './configuration';
import { writeObjectStoreObjects, type ObjectStoreDestination } from './object-store/write';
import { observeConnector } from './observed';
import type { ObjectToWrite, WriteOptions } from './write-options';

/** An S3-compatible bucket named in a direct export's request. */
export type WriteDestination = { readonly type: 'object_store' } & ObjectStoreDestination;

/** Writes a direct export's files to the destination, all of them or none visibly. */
export async function writeToDestination(
  destination: WriteDestination,
  objects: readonly ObjectToWrite[],
  options: WriteOptions,
): Promise<void> {
  return observeConnector(destination.type, 'write', () => writeObjectStoreObjects(destination, objects, options));
}

/** Where a target sends an export, rendered: a folder (`<bucket>/<folder>/`) or a table name. */
export type TargetPlace =
  { readonly kind: 'bucket'; readonly path: string } | { readonly kind: 'table'; readonly table: string };

/** The export's output as the worker wrote it: one file, with the name a bucket target gives it. */
export interface ExportedFile {
  readonly localPath: string;
  readonly bytes: number;
  readonly rows: number;
  /** The file's name inside a bucket target's folder. */
  readonly name: string;
  readonly contentType: string;
}

/** Where the data went, as GET /exports/{id} shows it. */
export interface WrittenExport {
  readonly exportedTableName: string;
  readonly details: Readonly<Record<string, string>>;
}

export interface TargetWriter {
  /** The file format the writer takes: a bucket writer the one the export asked, a table writer Parquet. */
  readonly format: (requested: ExportFormat) => ExportFormat;
  /** Writes the file to the place, whole or not at all. */
  write(file: ExportedFile, options: WriteOptions): Promise<WrittenExport>;
}

/** A bucket writer: the file goes in the folder under its name; `write` writes that object. */
function bucketWriter(
  path: string,
  prefix: string,
  bucket: string,
  write: (objects: readonly ObjectToWrite[], options: WriteOptions) => Promise<void>,
): TargetWriter {
  return {
    format: (requested) => requested,
    async write(file, options) {
      const key = `${prefix}${file.name}`;
      await write([{ key, localPath: file.localPath, bytes: file.bytes, contentType: file.contentType }], options);
      return { exportedTableName: key, details: { bucket, key, path } };
    },
  };
}

/** A table writer: it takes Parquet, whatever format the export asked (a format is a file's matter). */
function tableWriter(write: TargetWriter['write']): TargetWriter {
  return { format: () => 'parquet', write };
}

/**
 * The writer of a target's place through its connection (secret in clear). A place the
 * connection type does not receive is a target that cannot exist (30-5003 at its creation);
 * the caller checked the connector's toggle (requireFeature); a type without a writer (pricing
 * connections receive transfers, not exports) is 10-1501 naming its toggle (transfers). The Google and Snowflake SDKs are loaded only here, when their writer is asked for.
 */
export async function targetWriter(connection: SourceConnection, place: TargetPlace): Promise<TargetWriter> {
  const writer = await writerOf(connection, place);
  // Each write is measured by connector and outcome (docs/operations.md).
  return {
    format: writer.format,
    write: (file, options) => observeConnector(connection.type, 'write', () => writer.write(file, options)),
  };
}

async function writerOf(connection: SourceConnection, place: TargetPlace): Promise<TargetWriter> {
  if (place.kind === 'bucket' && connection.type === 'object_store') {
    const { bucket, prefix } = parseBucketLocation(place.path, S3_BUCKETS);
    const destination = {
      endpoint: connection.auth.endpoint ?? '',
      accessKeyId: connection.auth.access_key_id ?? '',
      secretAccessKey: connection.secret,
      bucket,
    };
    return bucketWriter(place.path, prefix, bucket, (objects, options) =>
      writeObjectStoreObjects(destination, objects, options),
    );
  }
  if (place.kind === 'bucket' && connection.type === 'cloud_store') {
    const { bucket, prefix } = parseBucketLocation(place.path, GCS_BUCKETS);
    const [{ writeCloudStoreObjects }, { googleCredentialsOf }] = await Promise.all([
      import('./cloud-store/write'),
      import('./cloud/token'),
    ]);
    const destination = { credentials: googleCredentialsOf(connection.auth, connection.secret), bucket };
    return bucketWriter(place.path, prefix, bucket, (objects, options) =>
      writeCloudStoreObjects(destination, objects, options),
    );
  }
  if (place.kind === 'table' && connection.type === 'analytics_db') {
    const [{ loadIntoAnalyticsDb }, { googleCredentialsOf }] = await Promise.all([
      import('./analytics-db/write'),
      import('./cloud/token'),
    ]);
    const destination = {
      credentials: googleCredentialsOf(connection.auth, connection.secret),
      datasetId: connection.settings.dataset_id,
      table: place.table,
    };
    return tableWriter(async (file, options) => {
      const { project, dataset } = await loadIntoAnalyticsDb(destination, file, options);
      return { exportedTableName: place.table, details: { project, dataset, table: place.table } };
    });
  }
  if (place.kind === 'table' && connection.type === 'warehouse') {
    const [{ insertIntoWarehouse }, { warehouseTarget }] = await Promise.all([
      import('./warehouse/write'),
      import('./warehouse/client'),
    ]);
    const target = warehouseTarget(connection);
    return tableWriter(async (file, options) => {
      await insertIntoWarehouse(target, place.table, file.localPath, options);
      return {
        exportedTableName: place.table,
        details: { database: target.database ?? '', schema: target.schema ?? '', table: place.table },
      };
    });
  }
  throw featureOff(CONNECTOR_TOGGLES[connection.type]);
}
