/**
 * Reading a data source's data into local files for the engine: the connector's reader
 * (connectors/<type>/source.ts), chosen by the connection's type, given the data source's
 * fields that it reads. Object and cloud stores, warehouses, analytics databases and Delta
 * Sharing servers are read for real while their toggles are on; the other connectors' toggles
 * stay off (10-1501).
 */
import type { SourceConnection } from '../connectors/configuration';
import { observeConnector } from '../connectors/observed';
import { fetchObjectStoreSource } from '../connectors/object-store/source';
import type { FetchedSource, FetchOptions } from '../connectors/source-types';
import { AppError } from '../errors/app-error';
import { CONNECTOR_TOGGLES } from '../features/catalogue';
import { featureOff } from '../features/store';
import { unsupportedSourceType } from './definition';
import type { DataSourceData } from './store';

/**
 * Fetches a data source's data through its connection (secret in clear). A data source of
 * another kind than its connection serves is 10-1043; the caller
 * checked the connector's toggle (requireFeature); a connector this build lacks is 10-1501
 * naming its toggle, which is never on.
 */
export function fetchSource(
  connection: SourceConnection,
  dataSource: DataSourceData,
  options: FetchOptions,
): Promise<FetchedSource> {
  // Measured by connector and outcome (docs/operations.md).
  return observeConnector(connection.type, 'read', () => read(connection, dataSource, options));
}

async function read(
  connection: SourceConnection,
  dataSource: DataSourceData,
  options: FetchOptions,
): Promise<FetchedSource> {
  switch (connection.type) {
    case 'object_store':
      if (dataSource.type !== 'bucket') throw unsupportedSourceType(dataSource.type);
      if (dataSource.path === null) throw new AppError('30-1113', { extraDetails: { path: null } });
      return fetchObjectStoreSource(
        {
          endpoint: connection.auth.endpoint ?? '',
          accessKeyId: connection.auth.access_key_id ?? '',
          secretAccessKey: connection.secret,
          pathRestriction: connection.settings.path_restriction,
          path: dataSource.path,
        },
        options,
      );
    case 'cloud_store': {
      if (dataSource.type !== 'bucket') throw unsupportedSourceType(dataSource.type);
      if (dataSource.path === null) throw new AppError('30-1304', { extraDetails: { path: null } });
      // Loaded only when called: the Google SDK stays out of readers of other stores.
      const [{ fetchCloudStoreSource }, { googleCredentialsOf }] = await Promise.all([
        import('../connectors/cloud-store/source'),
        import('../connectors/cloud/token'),
      ]);
      return fetchCloudStoreSource(
        {
          credentials: googleCredentialsOf(connection.auth, connection.secret),
          pathRestriction: connection.settings.path_restriction,
          path: dataSource.path,
        },
        options,
      );
    }
    case 'warehouse': {
      if (dataSource.type !== 'rdbms') throw unsupportedSourceType(dataSource.type);
      if (dataSource.query === null) throw new AppError('30-1008', { extraDetails: { query: null } });
      // Loaded only when called: snowflake-sdk stays out of readers of other stores.
      const [{ fetchWarehouseSource }, { warehouseTarget }] = await Promise.all([
        import('../connectors/warehouse/source'),
        import('../connectors/warehouse/client'),
      ]);
      return fetchWarehouseSource(
        { target: warehouseTarget(connection, dataSource.warehouse), query: dataSource.query },
        options,
      );
    }
    case 'analytics_db': {
      if (dataSource.type !== 'analytics_db') throw unsupportedSourceType(dataSource.type);
      if (dataSource.table_ref === null) throw new AppError('30-1419', { params: [''] });
      // Loaded only when called: the BigQuery SDK stays out of readers of other stores.
      const [{ fetchAnalyticsDbSource }, { googleCredentialsOf }] = await Promise.all([
        import('../connectors/analytics-db/source'),
        import('../connectors/cloud/token'),
      ]);
      return fetchAnalyticsDbSource(
        {
          credentials: googleCredentialsOf(connection.auth, connection.secret),
          tableRef: dataSource.table_ref,
          datasetId: connection.settings.dataset_id ?? null,
        },
        options,
      );
    }
    case 'delta_sharing': {
      if (dataSource.type !== 'delta_sharing') throw unsupportedSourceType(dataSource.type);
      const { fetchDeltaSharingSource } = await import('../connectors/delta-sharing/source');
      const { table_version: version, table_timestamp: timestamp } = dataSource;
      return fetchDeltaSharingSource(
        {
          profileContent: connection.secret,
          ref: { share: dataSource.share ?? '', schema: dataSource.schema ?? '', table: dataSource.table ?? '' },
          pin: {
            ...(typeof version === 'number' ? { version } : {}),
            ...(typeof timestamp === 'string' ? { timestamp } : {}),
          },
        },
        options,
      );
    }
    default:
      throw featureOff(CONNECTOR_TOGGLES[connection.type]);
  }
}
