import { ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import { connectionStore } from '../connections/store';
import { keys } from '../db/keys';
import { countCondition, refAttribute } from '../db/related-writes';
import { transactWrite, type TransactItem } from '../db/transactions';
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
  const found: { tenantId: string; id: number }[] = [];
  let cursor: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page = await dynamoDocumentClient().send(
      new ScanCommand({
        TableName: config.tableName,
        FilterExpression: '#kind = :kind',
        ProjectionExpression: 'tenant_id, id',
        ExpressionAttributeNames: { '#kind': 'kind' },
        ExpressionAttributeValues: { ':kind': 'CONNECTION' },
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) found.push({ tenantId: String(item.tenant_id), id: Number(item.id) });
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return found;
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
    const TableName = config.tableName;
    const checks: TransactItem[] = sources.map((source) => ({
      ConditionCheck: {
        TableName,
        Key: keys.entity(tenantId, 'DATA_SOURCE', source.id),
        ConditionExpression: `lock_version = :seen AND ${countCondition('#tables', ':tables', source.refs.data_tables ?? 0)}`,
        ExpressionAttributeNames: { '#tables': refAttribute('data_tables') },
        ExpressionAttributeValues: { ':seen': source.lock_version, ':tables': source.refs.data_tables ?? 0 },
      },
    }));
    const outcome = await transactWrite([
      {
        Update: {
          TableName,
          Key: keys.entity(tenantId, 'CONNECTION', id),
          UpdateExpression: 'SET #tables = :after',
          ConditionExpression: `${countCondition('#sources', ':sources', sources.length)} AND ${before === undefined ? 'attribute_not_exists(#tables)' : '#tables = :before'}`,
          ExpressionAttributeNames: { '#tables': refAttribute('tables'), '#sources': refAttribute('data_sources') },
          ExpressionAttributeValues: {
            ':after': after,
            ':sources': sources.length,
            ...(before === undefined ? {} : { ':before': before }),
          },
        },
      },
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
