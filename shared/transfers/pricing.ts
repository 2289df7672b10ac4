import { openConnectionSecret } from '../connections/secret';
import type { ConnectionData } from '../connections/store';
import type { PricingColumn, PricingConnector, PricingType } from '../connectors/pricing/connector';
import { featureOff } from '../features/store';

/**
 * The transfer's one seam to the pricing connectors (shared/connectors/pricing): the
 * connector of a stored connection, and the connection's type mapping applied to columns and
 * values. PLACEHOLDER until the connectors are merged.
 */

/** The pricing connector of a stored pricing_dim or pricing_sdk connection, its secret opened. */
export async function pricingConnectorFor(
  tenantId: string,
  connection: { readonly id: number; readonly data: ConnectionData },
): Promise<PricingConnector> {
  await openConnectionSecret(tenantId, connection);
  throw featureOff('transfers');
}

/** The columns as the pricing system receives them: the connection's type mapping applied (30-4009). */
export function mappedColumns(
  columns: readonly { readonly name: string; readonly type: string }[],
  typeMapping: Readonly<Record<string, string>> | null,
): PricingColumn[] {
  return columns.map((column) => ({
    name: column.name,
    type: (typeMapping?.[column.name] ?? 'STRING') as PricingType,
  }));
}

/** One engine value as the JSON scalar of its pricing type (30-4009 when it is not of the type). */
export function mappedValue(value: unknown, type: PricingType): string | number | boolean | null {
  void type;
  return value === null || value === undefined ? null : String(value);
}
