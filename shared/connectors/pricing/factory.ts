import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import type { ConnectionConfiguration } from '../configuration';
import type { PricingConnector } from './connector';
import { dimConnector } from './dim';
import { sdkConnector } from './sdk';

/**
 * The pricing connector of a stored (or tested) connection's configuration and its secret in
 * clear: the DIM for pricing_dim, the SDK for pricing_sdk (docs/pricing.md). Calls are bounded
 * by CONNECTOR_TIMEOUT_MS each. Another type is 30-4008.
 */
export function pricingConnectorOf(configuration: ConnectionConfiguration, secret: string): PricingConnector {
  const connection = { ...configuration, secret };
  switch (configuration.type) {
    case 'pricing_dim':
      return dimConnector(connection, config.connectorTimeoutMs);
    case 'pricing_sdk':
      return sdkConnector(connection, config.connectorTimeoutMs);
    default:
      throw new AppError('30-4008', { params: [configuration.type] });
  }
}
