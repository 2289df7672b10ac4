import { openConnectionSecret } from '../connections/secret';
import type { ConnectionData } from '../connections/store';
import type { PricingConnector } from '../connectors/pricing/connector';
import { observePricingConnector } from '../connectors/observed';
import { pricingConnectorOf } from '../connectors/pricing/factory';

export { pricingColumnsOf as mappedColumns, pricingValueOf as mappedValue } from '../connectors/pricing/types';

/**
 * The transfer's one seam to the pricing connectors (shared/connectors/pricing, docs/pricing.md):
 * the connector of a stored connection, and the connection's type mapping applied to columns
 * (mappedColumns, 30-4009 for a column it cannot map) and values (mappedValue).
 */

/** The pricing connector of a stored pricing_dim or pricing_sdk connection, its secret opened. */
export async function pricingConnectorFor(
  tenantId: string,
  connection: { readonly id: number; readonly data: ConnectionData },
): Promise<PricingConnector> {
  const secret = await openConnectionSecret(tenantId, connection);
  const { type, auth, settings } = connection.data;
  // Each call to the pricing system is measured by connector and outcome (docs/operations.md).
  return observePricingConnector(type, pricingConnectorOf({ type, auth, secret, settings }, secret));
}
