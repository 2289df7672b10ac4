import { connectionStore, type ConnectionData } from '../connections/store';
import { dataSourceStore, type DataSourceData } from '../data-sources/store';
import type { Entity } from '../db/entity-store';
import { connectionDetails, dataTableResponse } from './response';
import type { DataTableData } from './store';
import { dataVersions } from './versions';

/**
 * Data table responses with what they show of other resources (the latest version, the
 * connection behind the data source). One instance per request: data sources and
 * connections shared by several tables are read once.
 */
export class DataTableViews {
  private readonly sources = new Map<number, Promise<Entity<DataSourceData> | undefined>>();
  private readonly connections = new Map<number, Promise<Entity<ConnectionData> | undefined>>();

  constructor(private readonly tenantId: string) {}

  async of(entity: Entity<DataTableData>) {
    const [latest, source] = await Promise.all([dataVersions.latest(this.tenantId, entity.id), this.source(entity.data.data_source_id)]);
    const connection = source ? await this.connection(source.data.connection_id) : undefined;
    return dataTableResponse(entity, latest, connectionDetails(source, connection));
  }

  private source(id: number) {
    let found = this.sources.get(id);
    if (!found) this.sources.set(id, (found = dataSourceStore.find(this.tenantId, id)));
    return found;
  }

  private connection(id: number) {
    let found = this.connections.get(id);
    if (!found) this.connections.set(id, (found = connectionStore.find(this.tenantId, id)));
    return found;
  }
}
