import { createHash } from 'node:crypto';
import type { ConnectionData } from '../connections/items';
import type { DataSourceData } from '../data-sources/items';

/**
 * Datasets named as OpenLineage names them (https://openlineage.io/docs/spec/naming): a
 * namespace for the system, a name within it. The same names serve the lineage routes and the
 * run events, so a column followed through the API and one seen in Marquez meet. Names carry
 * no secret: a warehouse query is named by a digest of its text, never the text.
 */
export interface DatasetName {
  readonly namespace: string;
  readonly name: string;
}

const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** "bucket/folder/file.csv" as its bucket and the key within it. */
function bucketPath(path: string | null): { bucket: string; key: string } {
  const [bucket = '', ...rest] = (path ?? '').split('/');
  return { bucket, key: rest.join('/') || '/' };
}

/** The host of a connection's address, without scheme or port, for a namespace. */
function hostOf(address: string | null | undefined): string {
  if (!address) return 'unknown';
  try {
    return new URL(address.includes('://') ? address : `https://${address}`).hostname;
  } catch {
    return 'unknown';
  }
}

/** The object a data source reads through its connection. */
export function sourceObjectName(
  connection: Pick<ConnectionData, 'type' | 'auth' | 'settings'>,
  source: DataSourceData,
): DatasetName {
  switch (connection.type) {
    case 'object_store': {
      const { bucket, key } = bucketPath(source.path);
      return { namespace: `s3://${bucket}`, name: key };
    }
    case 'cloud_store': {
      const { bucket, key } = bucketPath(source.path);
      return { namespace: `gs://${bucket}`, name: key };
    }
    case 'warehouse': {
      // Snowflake: the account is the first label of the host (<account>.snowflakecomputing.com).
      const account = hostOf(String(connection.auth.host ?? '')).split('.')[0] ?? 'unknown';
      const scope = [connection.settings.database, connection.settings.schema].filter(Boolean).join('.');
      return {
        namespace: `snowflake://${account}`,
        name: `${scope ? `${scope}.` : ''}query_${digest(source.query ?? '')}`,
      };
    }
    case 'analytics_db':
      return { namespace: 'bigquery', name: (source.table_ref ?? '').replace(/[[\]`]/g, '') };
    case 'delta_sharing':
      return {
        namespace: 'delta-sharing',
        name: [source.share, source.schema, source.table].filter(Boolean).join('.'),
      };
    case 'pricing_dim':
    case 'pricing_sdk':
      return { namespace: `pricing://${hostOf(String(connection.auth.host ?? ''))}`, name: source.table ?? '' };
  }
}

/** The service's own datasets: a data table, a graph node's output; in the stage's namespace. */
export const serviceDatasets = {
  dataTable: (namespace: string, tenantId: string, dataTableId: number): DatasetName => ({
    namespace,
    name: `${tenantId}/data-tables/${dataTableId}`,
  }),
  node: (
    namespace: string,
    tenantId: string,
    datasetId: number,
    versionNumber: number,
    nodeId: number,
  ): DatasetName => ({
    namespace,
    name: `${tenantId}/datasets/${datasetId}/versions/${versionNumber}/nodes/${nodeId}`,
  }),
};
