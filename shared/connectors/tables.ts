import type { ConnectionType } from '../model/connection';
import { AppError } from '../errors/app-error';
import { CONNECTOR_TOGGLES } from '../features/catalogue';
import { featureOff, requireConnector } from '../features/store';
import { TABLE_CONNECTION_TYPES, type TableDetails } from '../model/table';
import type { ConnectionConfiguration } from './configuration';
import { observeConnector } from './observed';

/**
 * Table listing and table details (spec 2.10) through a connection's system, chosen by its
 * type. analytics_db, warehouse and delta_sharing are read for real, each behind its toggle
 * (10-1501); the bucket stores and the pricing systems have no tables (30-3001). The SDKs are
 * loaded only when called.
 */

type TablesConnection = ConnectionConfiguration & { readonly secret: string };

const WITH_TABLES: ReadonlySet<ConnectionType> = new Set(TABLE_CONNECTION_TYPES);

/**
 * Refuses, before any secret is opened, a connection whose type has no tables (30-3001
 * naming the connection) or whose connector's toggle is off for the tenant (10-1501).
 */
export async function assertTablesView(tenantId: string, type: ConnectionType, connectionId: number): Promise<void> {
  if (!WITH_TABLES.has(type)) throw new AppError('30-3001', { params: [connectionId] });
  await requireConnector(tenantId, type);
}

/** The tables a connection sees, at most MAX_LISTED_TABLES, in the system's order; assertTablesView came first. */
export function listTables(connection: TablesConnection): Promise<TableDetails[]> {
  return observeConnector(connection.type, 'tables', () => tablesOf(connection));
}

async function tablesOf(connection: TablesConnection): Promise<TableDetails[]> {
  if (connection.type === 'analytics_db') {
    const [{ listAnalyticsDbTables }, { googleCredentialsOf }] = await Promise.all([
      import('./analytics-db/tables'),
      import('./cloud/token'),
    ]);
    return listAnalyticsDbTables({
      credentials: googleCredentialsOf(connection.auth, connection.secret),
      datasetId: connection.settings.dataset_id ?? null,
    });
  }
  if (connection.type === 'delta_sharing') {
    const { listDeltaSharingTables } = await import('./delta-sharing/tables');
    return listDeltaSharingTables(connection.secret);
  }
  if (connection.type !== 'warehouse') throw featureOff(CONNECTOR_TOGGLES[connection.type]);
  const [{ listWarehouseTables }, { warehouseTarget }] = await Promise.all([
    import('./warehouse/tables'),
    import('./warehouse/client'),
  ]);
  return listWarehouseTables(warehouseTarget(connection));
}

export interface TableLookup {
  readonly name: string;
  readonly database: string | undefined;
  readonly schema: string | undefined;
}

/**
 * One table's details (assertTablesView came first); a table the connection cannot see is
 * 30-1425 (analytics_db), 30-1010 (warehouse) or 30-3012 (delta_sharing: database names the share).
 */
export function getTable(connection: TablesConnection, lookup: TableLookup): Promise<TableDetails> {
  return observeConnector(connection.type, 'table', () => tableOf(connection, lookup));
}

async function tableOf(connection: TablesConnection, lookup: TableLookup): Promise<TableDetails> {
  if (connection.type === 'analytics_db') {
    const [{ analyticsDbTable }, { googleCredentialsOf }] = await Promise.all([
      import('./analytics-db/tables'),
      import('./cloud/token'),
    ]);
    return analyticsDbTable({
      credentials: googleCredentialsOf(connection.auth, connection.secret),
      datasetId: connection.settings.dataset_id ?? null,
      ...lookup,
    });
  }
  if (connection.type === 'delta_sharing') {
    const { deltaSharingTable } = await import('./delta-sharing/tables');
    return deltaSharingTable(connection.secret, lookup);
  }
  if (connection.type !== 'warehouse') throw featureOff(CONNECTOR_TOGGLES[connection.type]);
  const [{ warehouseTable }, { warehouseTarget }] = await Promise.all([
    import('./warehouse/tables'),
    import('./warehouse/client'),
  ]);
  return warehouseTable(warehouseTarget(connection), lookup);
}
