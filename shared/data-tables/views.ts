import { connectionStore } from '../connections/store';
import { dataSourceStore } from '../data-sources/store';
import { activeRule } from '../retention-policy/policy';
import { dataVersionExpiration } from '../retention-policy/expiry';
import { connectionDetails, dataTableResponse, versionResponse } from './response';
import type { DataTableEntity } from './store';
import { dataVersions } from './versions';

/**
 * Data table responses with what they show of other resources: the latest version comes
 * from the table's own item (its copy, items.ts), the connection details from the data
 * source and its connection, read in batches. Listing many tables costs the table Query
 * plus a BatchGetItem per hundred distinct data sources and per hundred connections, and one
 * read of the retention policy.
 */
export class DataTableViews {
  constructor(private readonly tenantId: string) {}

  async of(entity: DataTableEntity) {
    const [response] = await this.ofMany([entity]);
    return response!;
  }

  async ofMany(entities: readonly DataTableEntity[]) {
    // The policy does not depend on the sources: read beside them, a table's answer waits for two reads in a row, not three.
    const [sources, rule] = await Promise.all([
      dataSourceStore.findMany(
        this.tenantId,
        entities.map((entity) => entity.data.data_source_id),
      ),
      activeRule(this.tenantId),
    ]);
    const connections = await connectionStore.findMany(
      this.tenantId,
      [...sources.values()].map((source) => source.data.connection_id),
    );
    return entities.map((entity) => {
      const source = sources.get(entity.data.data_source_id);
      const details = connectionDetails(source, source && connections.get(source.data.connection_id));
      return dataTableResponse(entity, details, rule);
    });
  }
}

/** A data version as GET .../versions/{n} answers it: with its expiration under the tenant's retention policy. */
export async function versionView(tenantId: string, dataTableId: number, versionNumber: number) {
  // Independent reads, side by side: the answer waits for one round trip instead of two.
  const [version, rule] = await Promise.all([
    dataVersions.get(tenantId, dataTableId, versionNumber),
    activeRule(tenantId),
  ]);
  // The newest COMPLETED version is read only when a policy can expire anything.
  const kept = rule && (await dataVersions.newestCompleted(tenantId, dataTableId))?.version_number;
  return versionResponse(version, dataVersionExpiration(version, rule, kept));
}
