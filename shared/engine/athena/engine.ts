import { join } from 'node:path';
import { GetTableCommand } from '@aws-sdk/client-glue';
import { mkdir } from 'node:fs/promises';
import { deletePrefix, downloadFile, listKeys } from '../../aws/data-bucket';
import { AppError } from '../../errors/app-error';
import { requireFeature } from '../../features/store';
import { logger } from '../../log';
import { recordUsage } from '../../usage';
import type { RecipeEngine, RecipeEngineOptions, RecipeEngineResult } from '../recipe-engines';
import type { RecipeFolders, RecipeSource } from '../recipe-run';
import { queryFailure } from './failures';
import {
  ATHENA_QUERY_TIMEOUT_SECONDS,
  failedExecution,
  type AthenaHandoff,
  type AthenaOutcome,
  type QueryExecutionOutcome,
} from './handoff';
import { ctasFolder, ctasStatement, runTableName } from './query';
import { athenaRunPrefix } from './run-prefix';
import { tenantClients } from './tenant-role';
import {
  dropRunTables,
  ensureDatabase,
  ensureWorkgroup,
  registerInputs,
  s3Uri,
  scanCutoff,
  type AthenaSource,
  type RunTables,
} from './workspace';

/**
 * A trino-sql node built by Athena (docs/decisions.md, "Trino recipes"): its inputs registered
 * as tables of the tenant's Glue database over their exact files, its code run as a CTAS in the
 * tenant's workgroup that writes Parquet under the node's prefix, then those files read back
 * by the worker's DuckDB engine, which writes `data.parquet`, the preview, the schema and the
 * analysis exactly as a DuckDB run does, so every reader of outputs stays as it is. The data
 * Athena scanned counts against the tenant's data quota, its engine time against its CPU.
 * The worker (on Lambda: a run with a trino-sql node never goes to a Fargate task,
 * shared/datasets/run-launch.ts) prepares the query and hands it to its state machine, which
 * waits for it (`athena:startQueryExecution.sync`) and calls the worker again to finish the
 * node (handoff.ts). No worker waits for a query.
 */

/** What Athena needs of a node: the run's job, the node, the code and its inputs' files. */
export interface AthenaNode {
  /** The run's job: its id names the run's files, its tenant the Glue database, workgroup and quota. */
  readonly job: { readonly job_id: string; readonly tenant_id: string };
  readonly nodeId: number;
  readonly nodePrefix: string;
  readonly code: string;
  readonly sources: readonly AthenaSource[];
}

/** Records what the query used: bytes scanned as data read (the quota's data), engine time apart. */
async function recordScan(tenantId: string, execution: QueryExecutionOutcome): Promise<number> {
  const statistics = execution.Statistics;
  const bytes = statistics?.DataScannedInBytes ?? 0;
  if (bytes > 0)
    await recordUsage(tenantId, 'DATA_READ_BYTES', bytes).catch((error: unknown) =>
      logger.warn('bytes scanned of a trino-sql run not recorded', { error: error as Error }),
    );
  return (statistics?.EngineExecutionTimeInMillis ?? 0) / 1000;
}

/** DuckDB's type for a Glue column of an empty output (Athena writes no file for no rows). */
function duckType(hive: string): string {
  const simple: Record<string, string> = {
    boolean: 'BOOLEAN',
    tinyint: 'TINYINT',
    smallint: 'SMALLINT',
    int: 'INTEGER',
    integer: 'INTEGER',
    bigint: 'BIGINT',
    float: 'FLOAT',
    double: 'DOUBLE',
    date: 'DATE',
    timestamp: 'TIMESTAMP',
    binary: 'BLOB',
  };
  if (/^decimal\(\d+,\d+\)$/.test(hive)) return hive.toUpperCase();
  return simple[hive] ?? 'VARCHAR';
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The SQL the worker's DuckDB engine runs over the CTAS's files (`part_<n>` aliases): their
 * rows as one table, or, with no file, a query with the CTAS table's columns and no rows.
 */
async function readBackCode(run: RunTables, parts: number): Promise<string> {
  if (parts > 0)
    return Array.from({ length: parts }, (_, index) => `SELECT * FROM part_${index}`).join('\nUNION ALL\n');
  const { glue } = await tenantClients(run.tenantId);
  const { Table } = await glue.send(
    new GetTableCommand({ DatabaseName: run.database, Name: runTableName(run.jobId, run.nodeId, 'out') }),
  );
  const columns = Table?.StorageDescriptor?.Columns ?? [];
  return `SELECT ${columns.map((column) => `CAST(NULL AS ${duckType(column.Type ?? 'string')}) AS ${quoted(column.Name!)}`).join(', ')} LIMIT 0`;
}

/** The node's run: where its tables and files are. */
function runOf(node: AthenaNode, database: string): RunTables {
  const runPrefix = athenaRunPrefix(node.nodePrefix, node.job.job_id);
  return { tenantId: node.job.tenant_id, database, jobId: node.job.job_id, nodeId: node.nodeId, runPrefix };
}

/** The run's tables are dropped and its Athena folder removed: after the query, or when it cannot run. */
async function cleanUp(run: RunTables, inputs: number): Promise<void> {
  await dropRunTables(run, inputs);
  await deletePrefix(run.runPrefix).catch((error: unknown) =>
    logger.warn('removing a trino-sql run’s Athena files failed', { error: error as Error }),
  );
}

/**
 * Prepares the node's query: the tenant's workgroup (with the run's cutoff) and database, the
 * node's inputs registered as its tables, and the CTAS. The machine runs it
 * (infra/athena-branch.ts); nothing is left behind when this fails.
 */
export async function prepareAthenaQuery(node: AthenaNode): Promise<AthenaHandoff> {
  const tenantId = node.job.tenant_id;
  // The toggle may have been turned off since the recipe was saved: no Athena for the tenant then (10-1501).
  await requireFeature(tenantId, 'athena');
  // The tenant's role first: the database, the workgroup and the tables are made with it.
  const { roleArn } = await tenantClients(tenantId);
  const [cutoff, database] = await Promise.all([scanCutoff(tenantId), ensureDatabase(tenantId)]);
  const workgroup = await ensureWorkgroup(tenantId, cutoff.bytes);
  const run = runOf(node, database);
  try {
    const tables = await registerInputs(run, node.sources);
    const query = ctasStatement({
      database,
      table: runTableName(run.jobId, run.nodeId, 'out'),
      location: s3Uri(ctasFolder(run.runPrefix)),
      inputs: node.sources.map((source, index) => ({ alias: source.alias, table: tables[index]! })),
      code: node.code,
    });
    return { node_id: node.nodeId, workgroup, database, query_string: query, cutoff, role_arn: roleArn };
  } catch (error) {
    await cleanUp(run, node.sources.length);
    throw error;
  }
}

/** The query's execution the outcome carries; the run's error when the state timed out or failed without one. */
function executionOf(outcome: AthenaOutcome): QueryExecutionOutcome {
  if ('QueryExecution' in outcome) return outcome.QueryExecution;
  if (outcome.Error === 'States.Timeout')
    throw new AppError('10-1047', {
      message: `The run stopped at its time limit: its query ran for more than ${ATHENA_QUERY_TIMEOUT_SECONDS} s`,
      extraDetails: { cause: 'time limit' },
    });
  const execution = failedExecution(outcome.Cause);
  if (execution?.Status?.State !== undefined) return execution;
  logger.error('a trino-sql run’s query state failed', {
    error: new Error(`${outcome.Error}: ${outcome.Cause ?? ''}`),
  });
  throw new AppError('10-500');
}

/**
 * Finishes the node from its query's outcome: the data it scanned and its engine time
 * recorded, a failed or cancelled query mapped to its catalogue code (failures.ts), the CTAS's
 * files handed to `finish` (the DuckDB engine) for the output's files. The run's tables are
 * dropped and its Athena folder removed either way.
 */
export async function finishAthenaQuery(
  node: AthenaNode,
  handoff: AthenaHandoff,
  outcome: AthenaOutcome,
  folders: RecipeFolders,
  options: RecipeEngineOptions,
  finish: RecipeEngine,
): Promise<RecipeEngineResult> {
  const run = runOf(node, handoff.database);
  try {
    const execution = executionOf(outcome);
    const engineSeconds = await recordScan(node.job.tenant_id, execution);
    if (execution.Status?.State !== 'SUCCEEDED') {
      const tables = new Map(
        node.sources.map((source, index) => [runTableName(run.jobId, run.nodeId, index), source.alias]),
      );
      throw queryFailure(execution.Status, handoff.cutoff, { database: handoff.database, tables });
    }
    const parts = (await listKeys(ctasFolder(run.runPrefix))).filter((object) => object.bytes > 0);
    const partsDir = join(folders.inDir, 'athena');
    await mkdir(partsDir, { recursive: true });
    const sources: Promise<RecipeSource[]> = Promise.all(
      parts.map(async (part, index) => {
        const path = join(partsDir, `part-${index}.parquet`);
        await downloadFile(part.key, path, options.signal);
        return { alias: `part_${index}`, path };
      }),
    );
    const result = await finish.run(await readBackCode(run, parts.length), sources, folders, options);
    return { ...result, engineCpuSeconds: result.engineCpuSeconds + engineSeconds };
  } finally {
    await cleanUp(run, node.sources.length);
  }
}
