import type { ConnectionType } from '../model/connection';
import { AppError } from '../errors/app-error';
import type { TableDetails } from '../model/table';
import type { ConnectionConfiguration } from './configuration';

/**
 * Table listing and table details (spec 2.10) through a connection's system, chosen by its
 * type. analytics_db and warehouse are read for real; delta_sharing has tables but its
 * connector is not built (10-1501, as its test); the bucket stores and the pricing systems
 * have no tables (30-3001). The SDKs are loaded only when called.
 */

type TablesConnection = ConnectionConfiguration & { readonly secret: string };

const WITH_TABLES: ReadonlySet<ConnectionType> = new Set(['analytics_db', 'warehouse', 'delta_sharing']);

/**
 * Refuses, before any secret is opened, a connection whose type has no tables (30-3001
 * naming the connection) or whose connector is not built (10-1501).
 */
export function assertTablesView(type: ConnectionType, connectionId: number): void {
  if (!WITH_TABLES.has(type)) throw new AppError('30-3001', { params: [connectionId] });
  if (type !== 'analytics_db' && type !== 'warehouse') throw new AppError('10-1501', { params: [`connector.${type}`] });
}

/** The tables a connection sees, at most MAX_LISTED_TABLES, in the system's order. */
export async function listTables(connection: TablesConnection, connectionId: number): Promise<TableDetails[]> {
  assertTablesView(connection.type, connectionId);
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

/** One table's details; a table the connection cannot see is 30-1425 (analytics_db) or 30-1010 (warehouse). */
export async function getTable(
  connection: TablesConnection,
  connectionId: number,
  lookup: TableLookup,
): Promise<TableDetails> {
  assertTablesView(connection.type, connectionId);
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
  const [{ warehouseTable }, { warehouseTarget }] = await Promise.all([
    import('./warehouse/tables'),
    import('./warehouse/client'),
  ]);
  return warehouseTable(warehouseTarget(connection), lookup);
}
