import { connectionStore } from '../connections/store';
import { allOf, is } from '../db/expressions';
import { keys } from '../db/keys';
import { refAttribute } from '../db/related-writes';
import { scanItems } from '../db/table';
import { transactWrite, tx } from '../db/transactions';
import { dataSourceStore } from './store';

/**
 * The recount of `ref_tables` on connections stored before the counter existed (they count
 * their data sources only): infra/scripts/backfill-connection-tables.ts runs it once per stage
 * after the deploy that brings the counter. A missing counter cannot be read as zero: a
 * connection with tables would then lose them at its first table delete (the counter may not
 * go below zero) or be undercounted after its first table create.
 */

/** One transaction: the connection's update and one check per data source. */
const MAX_SOURCES = 99;
const ATTEMPTS = 3;

export interface BackfillReport {
  readonly connections: number;
  /** Connections whose counter was absent or wrong, as `<tenant>/<id>: <before> -> <after>`. */
  readonly corrected: readonly string[];
  /** Connections left as they were: more data sources than one transaction checks, or ever-changing. */
  readonly skipped: readonly string[];
}

async function connectionKeys(): Promise<{ tenantId: string; id: number }[]> {
  const items = await scanItems(is.equal('kind', 'CONNECTION'), ['tenant_id', 'id']);
  return items.map((item) => ({ tenantId: String(item.tenant_id), id: Number(item.id) }));
}

/**
 * Sets one connection's counter to the sum of its data sources' table counters (maintained
 * since data sources exist), in a transaction that requires each of those data sources, the
 * connection's data-source counter and its table counter to be as read: a table or data
 * source written meanwhile cancels it, and it is done again. Returns the change, if any.
 */
async function recount(
  tenantId: string,
  id: number,
): Promise<{ before: number | undefined; after: number } | 'gone' | 'skipped'> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const connection = await connectionStore.find(tenantId, id);
    if (!connection) return 'gone';
    const sources = (await dataSourceStore.list(tenantId)).filter((source) => source.data.connection_id === id);
    if (sources.length > MAX_SOURCES) return 'skipped';
    const before = connection.refs.tables;
    const after = sources.reduce((sum, source) => sum + (source.refs.data_tables ?? 0), 0);
    const checks = sources.map((source) =>
      tx.check(
        keys.entity(tenantId, 'DATA_SOURCE', source.id),
        allOf(
          is.equal('lock_version', source.lock_version),
          is.count(refAttribute('data_tables'), source.refs.data_tables ?? 0),
        ),
      ),
    );
    const tables = refAttribute('tables');
    const outcome = await transactWrite([
      tx.update(
        keys.entity(tenantId, 'CONNECTION', id),
        { set: { [tables]: after } },
        {
          when: allOf(
            is.count(refAttribute('data_sources'), sources.length),
            before === undefined ? is.absent(tables) : is.equal(tables, before),
          ),
        },
      ),
      ...checks,
    ]);
    if (outcome.committed) return { before, after };
  }
  return 'skipped';
}

/** Recounts every connection of every tenant; safe to run again, and beside live traffic. */
export async function backfillConnectionTables(): Promise<BackfillReport> {
  const connections = await connectionKeys();
  const corrected: string[] = [];
  const skipped: string[] = [];
  for (const { tenantId, id } of connections) {
    const result = await recount(tenantId, id);
    if (result === 'skipped') skipped.push(`${tenantId}/${id}`);
    else if (result !== 'gone' && result.before !== result.after)
      corrected.push(`${tenantId}/${id}: ${result.before ?? 'absent'} -> ${result.after}`);
  }
  return { connections: connections.length, corrected, skipped };
}
