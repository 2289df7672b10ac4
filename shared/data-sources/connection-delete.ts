import { connectionStore, type ConnectionData, type ConnectionReference } from '../connections/store';
import type { Cascade, Entity } from '../db/entity-store';
import { transactWrite } from '../db/transactions';
import { AppError, versionConflict } from '../errors/app-error';
import { dataSourceStore, type DataSourceData } from './store';

/**
 * DynamoDB's limit of 100 items per transaction: the connection's delete writes 2 (its item
 * and name claim) and each data source 2, as does a batch (a data source's 2, the counter 1).
 */
const SOURCES_PER_TRANSACTION = 49;
/** Batches tried before a connection whose data sources keep changing is answered 10-1006. */
const BATCH_ATTEMPTS = 3;

async function sourcesOf(tenantId: string, connectionId: number): Promise<Entity<DataSourceData>[]> {
  const sources = (await dataSourceStore.list(tenantId)).filter((source) => source.data.connection_id === connectionId);
  // A table reads the connection through one of them: the connection's counter says so too, except on items from before it existed (infra/scripts/backfill-connection-tables.ts).
  if (sources.some((source) => (source.refs.data_tables ?? 0) > 0))
    throw new AppError('30-1507', { params: [connectionId] });
  return sources;
}

/**
 * The data sources that go with a connection: all of them, since none is read by a table
 * while the connection is deletable. Past what one transaction holds, they are deleted in
 * batches first, each only as read and while table-less, with the connection's counter
 * going down by as many; the rest go in the connection's own transaction.
 */
async function tablelessSources(
  tenantId: string,
  connection: Entity<ConnectionData>,
): Promise<Cascade<ConnectionReference>> {
  for (let attempt = 1; attempt <= BATCH_ATTEMPTS;) {
    const sources = await sourcesOf(tenantId, connection.id);
    if (sources.length <= SOURCES_PER_TRANSACTION) {
      return {
        writes: sources.flatMap((source) => dataSourceStore.removal(tenantId, source)),
        removed: { data_sources: sources.length },
      };
    }
    const batch = sources.slice(0, SOURCES_PER_TRANSACTION);
    const outcome = await transactWrite([
      ...batch.flatMap((source) => dataSourceStore.removal(tenantId, source)).map((write) => write.item),
      connectionStore.reference(tenantId, connection.id, 'data_sources', -batch.length, {
        seenLockVersion: connection.lock_version,
      }).item,
    ]);
    // A data source changed or the connection did: list again, a few times.
    if (!outcome.committed) attempt += 1;
  }
  throw versionConflict();
}

/**
 * Deletes a connection unless tables read it (30-1507) or targets use it (30-1508), with its
 * data sources (none of which a table reads then), so that no data source is left naming a
 * connection that is gone. Race-free: the connection's delete requires its data-source counter
 * to equal the number of data sources it deletes, and each of those to be as read and table-less.
 */
export async function deleteConnection(
  tenantId: string,
  connectionId: number,
  expectedLockVersion: number | undefined,
): Promise<void> {
  await connectionStore.delete(tenantId, connectionId, {
    expectedLockVersion,
    cascade: (connection) => tablelessSources(tenantId, connection),
  });
}
