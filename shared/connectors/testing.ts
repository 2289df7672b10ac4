import { config } from '../config';
import { requireConnector } from '../features/store';
import type { ConnectionConfiguration } from './configuration';
import { observeConnector } from './observed';
import { testObjectStore } from './object-store/test';

/**
 * Calls the external system of a validated configuration (secret in clear) and maps its
 * failures to the type's codes. A connector whose toggle is off for the tenant (never on for
 * one this build lacks) is 10-1501 naming the toggle; none reports a success it did not check.
 */
export async function testConnection(
  tenantId: string,
  configuration: ConnectionConfiguration & { readonly secret: string },
): Promise<void> {
  await requireConnector(tenantId, configuration.type);
  return observeConnector(configuration.type, 'test', () => callSystem(configuration));
}

async function callSystem(configuration: ConnectionConfiguration & { readonly secret: string }): Promise<void> {
  const { auth, settings } = configuration;
  switch (configuration.type) {
    case 'object_store':
      return testObjectStore({
        endpoint: auth.endpoint ?? '',
        accessKeyId: auth.access_key_id ?? '',
        secretAccessKey: configuration.secret,
        pathRestriction: settings.path_restriction,
      });
    case 'cloud_store': {
      // Loaded only when called: the Google SDK stays out of the cold start of other calls.
      const [{ testCloudStore }, { googleCredentialsOf }] = await Promise.all([
        import('./cloud-store/test'),
        import('./cloud/token'),
      ]);
      return testCloudStore({
        credentials: googleCredentialsOf(auth, configuration.secret),
        pathRestriction: settings.path_restriction,
      });
    }
    case 'analytics_db': {
      // Loaded only when called: the BigQuery SDK stays out of the cold start of other calls.
      const [{ testAnalyticsDb }, { googleCredentialsOf }] = await Promise.all([
        import('./analytics-db/test'),
        import('./cloud/token'),
      ]);
      return testAnalyticsDb({
        credentials: googleCredentialsOf(auth, configuration.secret),
        datasetId: settings.dataset_id,
      });
    }
    case 'warehouse': {
      // Loaded only when called: snowflake-sdk stays out of the cold start of other calls.
      const [{ testWarehouse }, { warehouseTarget }] = await Promise.all([
        import('./warehouse/test'),
        import('./warehouse/client'),
      ]);
      return testWarehouse(warehouseTarget(configuration));
    }
    case 'delta_sharing': {
      const { testDeltaSharing } = await import('./delta-sharing/test');
      return testDeltaSharing(configuration.secret);
    }
    case 'pricing_dim':
    case 'pricing_sdk': {
      const { pricingConnectorOf } = await import('./pricing/factory');
      // A token (and for the SDK a login) and one cheap call, each bounded by the connector time-out.
      const calls = configuration.type === 'pricing_sdk' ? 3 : 2;
      const signal = AbortSignal.timeout(calls * config.connectorTimeoutMs);
      return pricingConnectorOf(configuration, configuration.secret).test(signal);
    }
  }
}
