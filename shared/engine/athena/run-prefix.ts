import { config } from '../../config';

/**
 * Where a run keeps its Athena files and what its Glue tables are called. Apart from query.ts,
 * which brings the Trino parser: the cancel route removes these files and tables and must not
 * carry the parser in its bundle.
 */

/** The tenant's Glue database. Tenant ids are lowercase letters, digits and inner hyphens; Glue names take underscores. */
export function athenaDatabase(tenantId: string): string {
  return `${config.athena.databasePrefix}${tenantId}`.replace(/-/g, '_');
}

/** The part every per-run table name of a job starts with. */
export function runTablePrefix(jobId: string): string {
  return `run_${jobId.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}_`;
}

/** A per-run table name: the job's id (a UUID after its kind), the node and the input. */
export function runTableName(jobId: string, nodeId: number, input: number | 'out'): string {
  return `${runTablePrefix(jobId)}n${nodeId}_${input === 'out' ? 'out' : `in${input}`}`;
}

/** Where a run of a node keeps its Athena files, under the node's output prefix (so a failed build's clean-up removes them). */
export function athenaRunPrefix(nodePrefix: string, jobId: string): string {
  return `${nodePrefix}athena/${jobId}/`;
}
