import { connectionStore } from '../../connections/store';
import { dataSourceStore } from '../../data-sources/store';
import { dataTableStore } from '../../data-tables/store';
import type { SourceObject } from '../../model/lineage';
import { sourceObjectName } from '../../openlineage/naming';

/** What a data table's data source reads, named as OpenLineage names it; null once something on the way is gone. */
export async function sourceObject(tenantId: string, dataTableId: number): Promise<SourceObject | null> {
  const table = await dataTableStore.find(tenantId, dataTableId);
  const source = table && (await dataSourceStore.find(tenantId, table.data.data_source_id));
  const connection = source && (await connectionStore.find(tenantId, source.data.connection_id));
  if (!source || !connection) return null;
  return {
    ...sourceObjectName(connection.data, source.data),
    connection_id: connection.id,
    connection_type: connection.data.type,
    data_source_id: source.id,
  };
}
