import { config } from '../../config';
import { validationError } from '../../errors/app-error';
import { MAX_LISTED_TABLES, type TableDetails } from '../../model/table';
import { DeltaSharingClient } from './client';
import { engineTypeOf } from './types';

/**
 * The tables of a delta_sharing connection: every table of every share the recipient sees
 * (the shares listing, then each share's all-tables listing, paged), as `share.schema.table`
 * with the share as the table's database. One table's details add its columns from the
 * table's metadata, typed as the engine will load them (types.ts, docs/delta-sharing.md).
 */

/** Lists the connection's tables, at most MAX_LISTED_TABLES, in the server's order. */
export async function listDeltaSharingTables(profileContent: string): Promise<TableDetails[]> {
  const client = DeltaSharingClient.of(profileContent, config.connectorTimeoutMs);
  const tables: TableDetails[] = [];
  for (const share of await client.listShares()) {
    for (const table of await client.listAllTables(share))
      tables.push({ name: table.table, database: table.share, schema: table.schema, type: 'TABLE' });
    if (tables.length >= MAX_LISTED_TABLES) return tables.slice(0, MAX_LISTED_TABLES);
  }
  return tables;
}

export interface DeltaSharingTableLookup {
  readonly name: string;
  /** The share. */
  readonly database: string | undefined;
  readonly schema: string | undefined;
}

/** One table's details with its columns; an unknown share, schema or table is 30-3012. */
export async function deltaSharingTable(
  profileContent: string,
  lookup: DeltaSharingTableLookup,
): Promise<TableDetails> {
  if (lookup.database === undefined || lookup.schema === undefined)
    throw validationError({
      [lookup.database === undefined ? 'database' : 'schema']: 'required: a shared table is named share.schema.table',
    });
  const client = DeltaSharingClient.of(profileContent, config.connectorTimeoutMs);
  const ref = { share: lookup.database, schema: lookup.schema, table: lookup.name };
  const metadata = await client.metadata(ref);
  return {
    name: ref.table,
    database: ref.share,
    schema: ref.schema,
    type: 'TABLE',
    columns: metadata.fields.map((field) => ({
      name: field.name,
      type: engineTypeOf(field.type),
      nullable: field.nullable ?? true,
      partition: metadata.partitionColumns.includes(field.name),
    })),
  };
}
