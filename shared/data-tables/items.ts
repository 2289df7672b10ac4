import * as z from 'zod';
import { StoredActor } from '../db/items';
import { StoredExecution } from '../jobs/status';
import { SchemaAnalysisDepth } from '../model/columns';
import { VersionMetadata as VersionMetadataShape } from '../model/data-table';
import { QualityReport } from '../model/quality-rule';

/**
 * The stored items of data tables (spec 2.6):
 *
 *   table    entity item (db/entity-item.ts): `data`, and the mirror `latest_version`
 *   head     { version_count?, active_job?: { job_id, version_number } }  numbers versions, admits one creation
 *   version  { data_table_id, version_number, execution, metadata?, analysis_execution?, ... }
 */

/** The stored data of a data table: what it imports from; its versions live in its item collection. */
export const DataTableItemData = z.object({
  name: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()).readonly().nullable(),
  data_source_id: z.int(),
});
export type DataTableData = z.infer<typeof DataTableItemData>;

/** What an import measured, as the API shows it. */
export const VersionMetadata = VersionMetadataShape;
export type VersionMetadata = z.infer<typeof VersionMetadata>;

export const StoredVersion = z.object({
  data_table_id: z.int(),
  version_number: z.int(),
  version_display_name: z.string(),
  execution: StoredExecution,
  metadata: VersionMetadata.optional(),
  analysis_execution: StoredExecution.optional(),
  /** Depth of the last successful analysis. */
  analysis_depth: SchemaAnalysisDepth.optional(),
  /** Depth the current (or last) analysis run was asked for. */
  analysis_requested_depth: SchemaAnalysisDepth.optional(),
  ref_datasets: z.int().optional(),
  /** The data-quality report its import wrote (shared/quality/check.ts), and its acceptance; absent when none ran. */
  quality: QualityReport.optional(),
  created_by: StoredActor,
  created_date: z.string(),
});
export type StoredVersion = z.infer<typeof StoredVersion>;

/**
 * The copy of the table's newest version kept on the table's item: what a table response
 * shows of it. Every write to that version's fields writes the copy too, in the same
 * transaction (creation, the import job's status writes, deletion of the newest version),
 * so a list of tables is one Query.
 */
export const LatestVersion = StoredVersion.pick({
  data_table_id: true,
  version_number: true,
  version_display_name: true,
  execution: true,
  metadata: true,
  quality: true,
  created_by: true,
  created_date: true,
});
export type LatestVersion = z.infer<typeof LatestVersion>;

/** The attribute of the table item that holds the copy. */
export const LATEST_VERSION = 'latest_version';

/** The mirrors on a data table's item: the latest version, absent while it has none. */
export const DataTableMirrors = z.object({ [LATEST_VERSION]: LatestVersion.optional() });
export type DataTableMirrors = z.infer<typeof DataTableMirrors>;

/** The copy of a version for its table's item (only on writes: creation, deletion of the newest). */
export function latestVersionOf(version: StoredVersion): LatestVersion {
  return LatestVersion.parse(version);
}

export const VersionHead = z.object({
  version_count: z.int().optional(),
  /** The creation in progress: the lock its import job releases when it ends. */
  active_job: z.object({ job_id: z.string(), version_number: z.int() }).optional(),
});
export type VersionHead = z.infer<typeof VersionHead>;
