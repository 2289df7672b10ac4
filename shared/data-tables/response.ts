import type { ConnectionData } from '../connections/store';
import type { DataSourceData } from '../data-sources/store';
import { auditFieldsOf, type Entity } from '../db/entity-store';
import { config } from '../config';
import { executionView } from '../jobs/view';
import type { ConnectionDetails, DataTableResponse, DataVersion, SchemaAnalysisStatus } from '../model/data-table';
import type { z } from 'zod';
import type { RetentionPolicyRule } from '../model/retention';
import { dataVersionExpiration } from '../retention-policy/expiry';
import type { LatestVersion, StoredVersion } from './items';
import type { DataTableEntity } from './store';

/**
 * A version as the API shows it, from its item or from its table's copy of it;
 * `expiration` is what the retention policy says of it (shared/retention/expiry.ts).
 */
export function versionResponse(
  version: LatestVersion,
  expiration: string | null = null,
  now = Date.now(),
): z.input<typeof DataVersion> {
  const execution = executionView(version.execution, now, config.jobInactivitySeconds);
  return {
    data_table_id: version.data_table_id,
    version_number: version.version_number,
    version_display_name: version.version_display_name,
    execution,
    metadata: version.metadata ?? null,
    ...(version.quality ? { quality: version.quality } : {}),
    expiration_date: expiration,
    created_by: version.created_by,
    created_date: version.created_date,
    last_modified_by: version.created_by,
    last_modified_date: execution.ended_date ?? version.created_date,
  };
}

export function analysisStatus(version: StoredVersion): z.input<typeof SchemaAnalysisStatus> | undefined {
  if (!version.analysis_execution || !version.analysis_requested_depth) return undefined;
  return {
    execution: executionView(version.analysis_execution, Date.now(), config.jobInactivitySeconds),
    ...(version.analysis_depth ? { depth: version.analysis_depth } : {}),
    requested_depth: version.analysis_requested_depth,
  };
}

export function connectionDetails(
  source: Entity<DataSourceData> | undefined,
  connection: Entity<ConnectionData> | undefined,
): z.input<typeof ConnectionDetails> | null {
  if (!source || !connection) return null;
  return {
    connection_id: connection.id,
    connection_name: connection.data.name,
    connection_type: connection.data.type,
    data_source_type: source.data.type,
  };
}

/**
 * A data table as the API shows it. Its latest version is its newest: when COMPLETED it is the
 * newest COMPLETED one, which the policy keeps; otherwise no newer COMPLETED one exists.
 */
export function dataTableResponse(
  entity: DataTableEntity,
  details: z.input<typeof ConnectionDetails> | null,
  rule?: RetentionPolicyRule,
): z.input<typeof DataTableResponse> {
  const { data } = entity;
  const latest = entity.mirrors.latest_version;
  return {
    id: entity.id,
    lock_version: entity.lock_version,
    name: data.name,
    description: data.description,
    tags: data.tags ? [...data.tags] : null,
    data_source_id: data.data_source_id,
    data_version_exist: latest !== undefined,
    latest_data_version: latest
      ? versionResponse(
          latest,
          dataVersionExpiration(
            latest,
            rule,
            latest.execution.status === 'COMPLETED' ? latest.version_number : undefined,
          ),
        )
      : null,
    connection_details: details,
    ...auditFieldsOf(entity),
  };
}
