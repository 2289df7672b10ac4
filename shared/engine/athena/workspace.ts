import {
  CreateWorkGroupCommand,
  GetWorkGroupCommand,
  InvalidRequestException,
  UpdateWorkGroupCommand,
} from '@aws-sdk/client-athena';
import {
  AlreadyExistsException,
  BatchDeleteTableCommand,
  CreateDatabaseCommand,
  CreateTableCommand,
} from '@aws-sdk/client-glue';
import { getText, listKeys, putBytes } from '../../aws/data-bucket';
import { config } from '../../config';
import type { AppError } from '../../errors/app-error';
import { isFeatureOn } from '../../features/store';
import { logger } from '../../log';
import { ColumnSchema } from '../../model/columns';
import { findActiveContract } from '../../quota/store';
import { BYTES_PER_GB, measuredUsage } from '../../quota/usage';
import { athenaDatabase, athenaWorkgroup, glueColumns, manifestFolder, runTableName } from './query';
import { tenantClients } from './tenant-role';

/**
 * The tenant's place in Athena and Glue, made on its first trino-sql run: its workgroup (the
 * result location under the tenant's prefix, the bucket's SSE-KMS, the scan cutoff, all
 * enforced over what a query asks) and its Glue database; then, per run and node, one table
 * per input over a symlink manifest that lists the input's one Parquet file, so no table ever
 * lists a folder (docs/decisions.md, "Trino recipes").
 */

/** Athena's least BytesScannedCutoffPerQuery: 10 MB. */
export const MIN_ATHENA_CUTOFF_BYTES = 10_000_000;

/** The cutoff of a run's queries and what sets it: the stage's setting, or the tenant's quota where lower. */
export interface ScanCutoff {
  readonly bytes: number;
  readonly by: 'stage' | 'quota';
}

/** The stage's cutoff, lowered to what the tenant's current contract has left when its quota is enforced. */
export async function scanCutoff(tenantId: string): Promise<ScanCutoff> {
  const stage = config.athena.bytesScannedCutoff;
  if (!(await isFeatureOn(tenantId, 'quota_enforcement'))) return { bytes: stage, by: 'stage' };
  const contract = await findActiveContract(tenantId);
  if (!contract || contract.data.overage_allowed) return { bytes: stage, by: 'stage' };
  const { bytes: used } = await measuredUsage(tenantId, contract);
  const left = Math.floor(contract.data.data_transfer_gb * BYTES_PER_GB - used);
  return left < stage ? { bytes: Math.max(MIN_ATHENA_CUTOFF_BYTES, left), by: 'quota' } : { bytes: stage, by: 'stage' };
}

const s3Uri = (key: string): string => `s3://${config.dataBucket}/${key}`;

/** The tenant's workgroup with `cutoff`: created on first use (with the tenant's role), its cutoff updated when it differs. */
export async function ensureWorkgroup(tenantId: string, cutoff: number): Promise<string> {
  const name = athenaWorkgroup(tenantId);
  const { athena } = await tenantClients(tenantId);
  try {
    const { WorkGroup } = await athena.send(new GetWorkGroupCommand({ WorkGroup: name }));
    if (WorkGroup?.Configuration?.BytesScannedCutoffPerQuery !== cutoff)
      await athena.send(
        new UpdateWorkGroupCommand({ WorkGroup: name, ConfigurationUpdates: { BytesScannedCutoffPerQuery: cutoff } }),
      );
    return name;
  } catch (error) {
    if (!(error instanceof InvalidRequestException)) throw error;
  }
  try {
    await athena.send(
      new CreateWorkGroupCommand({
        Name: name,
        Description: `trino-sql recipe runs of tenant ${tenantId}`,
        Configuration: {
          // No EncryptionConfiguration: objects Athena writes then take the data bucket's default,
          // SSE-KMS with the bucket's own key, like every other object of the tenant; enforced,
          // so no query can name another.
          ResultConfiguration: { OutputLocation: s3Uri(`${tenantId}/athena-results/`) },
          EnforceWorkGroupConfiguration: true,
          BytesScannedCutoffPerQuery: cutoff,
          PublishCloudWatchMetricsEnabled: true,
        },
        Tags: [{ Key: 'tenant', Value: tenantId }],
      }),
    );
  } catch (error) {
    // Another run of the tenant made it meanwhile.
    if (!(error instanceof InvalidRequestException)) throw error;
  }
  return name;
}

/** The tenant's Glue database, created on first use. */
export async function ensureDatabase(tenantId: string): Promise<string> {
  const name = athenaDatabase(tenantId);
  const { glue } = await tenantClients(tenantId);
  try {
    await glue.send(
      new CreateDatabaseCommand({
        DatabaseInput: { Name: name, Description: `trino-sql recipe runs of tenant ${tenantId}` },
        Tags: { tenant: tenantId },
      }),
    );
  } catch (error) {
    if (!(error instanceof AlreadyExistsException)) throw error;
  }
  return name;
}

/** One input of a node: its alias, its Parquet file and the schema.json beside it. */
export interface AthenaSource {
  readonly alias: string;
  readonly dataKey: string;
  readonly schemaKey: string;
  /** The error when the file is not there (20-1059, 20-1039). */
  readonly missing: AppError;
}

/** Where a run's tables are. */
export interface RunTables {
  /** Whose role registers, reads and drops them. */
  readonly tenantId: string;
  readonly database: string;
  readonly jobId: string;
  readonly nodeId: number;
  readonly runPrefix: string;
}

/**
 * Registers each input as a table of the tenant's database: its columns from its schema.json,
 * its location a folder of the run that holds a manifest naming the input's one file. Answers
 * the tables' names in the order of the sources.
 */
export async function registerInputs(run: RunTables, sources: readonly AthenaSource[]): Promise<string[]> {
  const { glue } = await tenantClients(run.tenantId);
  return Promise.all(
    sources.map(async (source, index) => {
      const [schema, present] = await Promise.all([getText(source.schemaKey), listKeys(source.dataKey)]);
      if (schema === undefined || !present.some((object) => object.key === source.dataKey)) throw source.missing;
      const columns = glueColumns(ColumnSchema.array().parse(JSON.parse(schema)));
      const folder = manifestFolder(run.runPrefix, index);
      await putBytes(`${folder}symlink.txt`, Buffer.from(`${s3Uri(source.dataKey)}\n`), 'text/plain');
      const name = runTableName(run.jobId, run.nodeId, index);
      await glue.send(
        new CreateTableCommand({
          DatabaseName: run.database,
          TableInput: {
            Name: name,
            TableType: 'EXTERNAL_TABLE',
            Parameters: { classification: 'parquet' },
            StorageDescriptor: {
              Columns: columns,
              Location: s3Uri(folder),
              InputFormat: 'org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat',
              OutputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
              SerdeInfo: { SerializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
            },
          },
        }),
      );
      return name;
    }),
  );
}

/** Drops the run's tables of a node (its inputs' and its CTAS's): the files stay, as Glue leaves them. */
export async function dropRunTables(run: RunTables, inputs: number): Promise<void> {
  const names = [...Array.from({ length: inputs }, (_, index) => runTableName(run.jobId, run.nodeId, index))];
  names.push(runTableName(run.jobId, run.nodeId, 'out'));
  await tenantClients(run.tenantId)
    .then(({ glue }) => glue.send(new BatchDeleteTableCommand({ DatabaseName: run.database, TablesToDelete: names })))
    .catch((error: unknown) => logger.warn('dropping a run’s Glue tables failed', { error: error as Error }));
}

export { s3Uri };
