import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, GetCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import type { Actor } from '../db/entity-store';
import { keys } from '../db/keys';
import { failedAt, transactWrite, type TransactItem } from '../db/transactions';
import { AppError } from '../errors/app-error';
import type { JobRef } from '../jobs/job-ref';
import { markFailed, pendingExecution, type StoredExecution } from '../jobs/status';
import { abandonedAfterSeconds, executionView, isAbandoned, isRunning } from '../jobs/view';
import type { ColumnSchema, SchemaAnalysisDepth } from '../model/columns';

/**
 * Data versions (spec 2.6) in their table's item collection, next to a head item that
 * numbers them and admits one creation at a time:
 *
 *   head     { version_count, active_job?: { job_id, version_number } }
 *   version  { data_table_id, version_number, execution, metadata?, analysis_execution?, analysis_depth? }
 *
 * A version is allocated, its head claimed and its table checked in one transaction, so two
 * concurrent imports of one table cannot both start (20-1029) and numbers never repeat.
 */
const KIND = 'DATA_TABLE';
const BEGIN_ATTEMPTS = 4;

export interface VersionMetadata {
  readonly row_count: number;
  readonly column_count: number;
  readonly columns: ColumnSchema[];
  readonly source_files: number;
  readonly bytes_read: number;
  readonly data_bytes: number;
}

export interface StoredVersion {
  readonly data_table_id: number;
  readonly version_number: number;
  readonly version_display_name: string;
  readonly execution: StoredExecution;
  readonly metadata?: VersionMetadata;
  readonly analysis_execution?: StoredExecution;
  /** Depth of the last successful analysis. */
  readonly analysis_depth?: SchemaAnalysisDepth;
  /** Depth the current (or last) analysis run was asked for. */
  readonly analysis_requested_depth?: SchemaAnalysisDepth;
  readonly ref_datasets?: number;
  readonly created_by: Actor;
  readonly created_date: string;
}

interface Head {
  readonly version_count?: number;
  readonly active_job?: { readonly job_id: string; readonly version_number: number };
}

const now = () => Date.now();
const inactivity = () => config.jobInactivitySeconds;

export function importJobRef(tenantId: string, dataTableId: number, versionNumber: number, jobId: string): JobRef {
  return {
    tenant_id: tenantId,
    job_id: jobId,
    kind: 'import',
    subject: keys.version(tenantId, KIND, dataTableId, versionNumber),
    attribute: 'execution',
    lock: keys.childrenHead(tenantId, KIND, dataTableId),
  };
}

export function analysisJobRef(tenantId: string, dataTableId: number, versionNumber: number, jobId: string): JobRef {
  return {
    tenant_id: tenantId,
    job_id: jobId,
    kind: 'schema-analysis',
    subject: keys.version(tenantId, KIND, dataTableId, versionNumber),
    attribute: 'analysis_execution',
  };
}

function toVersion(item: Record<string, unknown>): StoredVersion {
  const { pk: _pk, sk: _sk, kind: _kind, tenant_id: _tenant, ...version } = item;
  return version as unknown as StoredVersion;
}

/** Versions of a table in number order, all pages (or the first `limit`). */
async function queryVersions(tenantId: string, dataTableId: number, options: { newestFirst: boolean; limit?: number }): Promise<StoredVersion[]> {
  const versions: StoredVersion[] = [];
  let cursor: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page = await dynamoDocumentClient().send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.children(tenantId, KIND, dataTableId), ':prefix': keys.VERSION_PREFIX },
        ConsistentRead: true,
        ScanIndexForward: !options.newestFirst,
        Limit: options.limit,
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) versions.push(toVersion(item));
    cursor = options.limit !== undefined && versions.length >= options.limit ? undefined : page.LastEvaluatedKey;
  } while (cursor);
  return versions;
}

async function readHead(tenantId: string, dataTableId: number): Promise<Head> {
  const result = await dynamoDocumentClient().send(
    new GetCommand({ TableName: config.tableName, Key: keys.childrenHead(tenantId, KIND, dataTableId), ConsistentRead: true }),
  );
  return (result.Item ?? {}) as Head;
}

export const dataVersions = {
  async find(tenantId: string, dataTableId: number, versionNumber: number): Promise<StoredVersion | undefined> {
    const result = await dynamoDocumentClient().send(
      new GetCommand({ TableName: config.tableName, Key: keys.version(tenantId, KIND, dataTableId, versionNumber), ConsistentRead: true }),
    );
    return result.Item ? toVersion(result.Item) : undefined;
  },

  async get(tenantId: string, dataTableId: number, versionNumber: number): Promise<StoredVersion> {
    const version = await dataVersions.find(tenantId, dataTableId, versionNumber);
    if (!version) throw new AppError('10-404', { params: ['data version', `${dataTableId}/${versionNumber}`] });
    return version;
  },

  /** Every version of the table, oldest first. */
  async list(tenantId: string, dataTableId: number): Promise<StoredVersion[]> {
    return queryVersions(tenantId, dataTableId, { newestFirst: false });
  },

  async latest(tenantId: string, dataTableId: number): Promise<StoredVersion | undefined> {
    const [newest] = await queryVersions(tenantId, dataTableId, { newestFirst: true, limit: 1 });
    return newest;
  },

  /**
   * Allocates the table's next version with a PENDING import job. Refused with 20-1029 while
   * another creation runs; a creation whose worker died (no heartbeat) is failed with
   * 10-1047 and taken over.
   */
  async begin(tenantId: string, actor: Actor, dataTableId: number): Promise<{ version: StoredVersion; job: JobRef }> {
    for (let attempt = 1; attempt <= BEGIN_ATTEMPTS; attempt += 1) {
      const head = await readHead(tenantId, dataTableId);
      if (head.active_job) {
        await dataVersions.recoverAbandoned(tenantId, dataTableId, head.active_job);
        continue;
      }
      const previous = head.version_count ?? 0;
      const versionNumber = previous + 1;
      const jobId = `import-${randomUUID()}`;
      const created = new Date().toISOString();
      const version: StoredVersion = {
        data_table_id: dataTableId,
        version_number: versionNumber,
        version_display_name: `V${versionNumber}`,
        execution: pendingExecution(jobId, created),
        created_by: actor,
        created_date: created,
      };
      const TableName = config.tableName;
      const headKey = keys.childrenHead(tenantId, KIND, dataTableId);
      const writes: TransactItem[] = [
        {
          Update: {
            TableName,
            Key: headKey,
            UpdateExpression: 'SET version_count = :next, active_job = :active',
            ConditionExpression:
              previous === 0 ? 'attribute_not_exists(version_count) AND attribute_not_exists(active_job)' : 'version_count = :previous AND attribute_not_exists(active_job)',
            ExpressionAttributeValues: {
              ':next': versionNumber,
              ':active': { job_id: jobId, version_number: versionNumber },
              ...(previous === 0 ? {} : { ':previous': previous }),
            },
          },
        },
        { ConditionCheck: { TableName, Key: keys.entity(tenantId, KIND, dataTableId), ConditionExpression: 'attribute_exists(pk)' } },
        {
          Put: {
            TableName,
            Item: { ...keys.version(tenantId, KIND, dataTableId, versionNumber), kind: 'DATA_VERSION', tenant_id: tenantId, ...version },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ];
      const outcome = await transactWrite(writes);
      if (outcome.committed) return { version, job: importJobRef(tenantId, dataTableId, versionNumber, jobId) };
      if (failedAt(outcome, 1)) throw new AppError('10-404', { params: ['data table', dataTableId] });
      // The head moved under us: another creation started (seen on the next read) or finished.
    }
    throw new AppError('20-1029');
  },

  /** Fails a creation whose worker went silent, releasing the table; otherwise 20-1029. */
  async recoverAbandoned(tenantId: string, dataTableId: number, active: NonNullable<Head['active_job']>): Promise<void> {
    const running = await dataVersions.find(tenantId, dataTableId, active.version_number);
    if (running && !isAbandoned(running.execution, now(), inactivity())) throw new AppError('20-1029');
    const ref = importJobRef(tenantId, dataTableId, active.version_number, active.job_id);
    const view = running ? executionView(running.execution, now(), inactivity()) : undefined;
    if (view?.error) await markFailed(ref, view.error);
    if (!running) {
      // The head names a version that is gone: release it directly.
      await transactWrite([
        {
          Update: {
            TableName: config.tableName,
            Key: keys.childrenHead(tenantId, KIND, dataTableId),
            UpdateExpression: 'REMOVE active_job',
            ConditionExpression: 'active_job.job_id = :job',
            ExpressionAttributeValues: { ':job': active.job_id },
          },
        },
      ]);
    }
  },

  /**
   * Deletes a version's item unless it is being created (20-1029) or used by a dataset
   * (20-1024). The caller removes its files afterwards.
   */
  async remove(tenantId: string, dataTableId: number, versionNumber: number): Promise<void> {
    const version = await dataVersions.get(tenantId, dataTableId, versionNumber);
    if (isRunning(version.execution, now(), inactivity())) throw new AppError('20-1029');
    const abandoned = isAbandoned(version.execution, now(), inactivity());
    if ((version.ref_datasets ?? 0) > 0) throw new AppError('20-1024', { params: [dataTableId, versionNumber] });
    const TableName = config.tableName;
    const writes: TransactItem[] = [
      {
        Delete: {
          TableName,
          Key: keys.version(tenantId, KIND, dataTableId, versionNumber),
          ConditionExpression: '#execution.job_id = :job AND #execution.#status = :status AND (attribute_not_exists(ref_datasets) OR ref_datasets = :zero)',
          ExpressionAttributeNames: { '#execution': 'execution', '#status': 'status' },
          ExpressionAttributeValues: { ':job': version.execution.job_id, ':status': version.execution.status, ':zero': 0 },
        },
      },
    ];
    if (abandoned) {
      // An abandoned creation: its claim on the table goes with it.
      writes.push({
        Update: {
          TableName,
          Key: keys.childrenHead(tenantId, KIND, dataTableId),
          UpdateExpression: 'REMOVE active_job',
          ConditionExpression: 'active_job.job_id = :job',
          ExpressionAttributeValues: { ':job': version.execution.job_id },
        },
      });
    }
    const outcome = await transactWrite(writes);
    if (outcome.committed) return;
    const current = await dataVersions.find(tenantId, dataTableId, versionNumber);
    if (!current) throw new AppError('10-404', { params: ['data version', `${dataTableId}/${versionNumber}`] });
    if ((current.ref_datasets ?? 0) > 0) throw new AppError('20-1024', { params: [dataTableId, versionNumber] });
    throw new AppError('20-1029');
  },

  /** Removes the head and every version item of a deleted table. */
  async purge(tenantId: string, dataTableId: number): Promise<void> {
    const versions = await dataVersions.list(tenantId, dataTableId);
    const itemKeys = [keys.childrenHead(tenantId, KIND, dataTableId), ...versions.map((v) => keys.version(tenantId, KIND, dataTableId, v.version_number))];
    for (let index = 0; index < itemKeys.length; index += 25) {
      let requests: Record<string, { DeleteRequest: { Key: Record<string, unknown> } }[]> | undefined = {
        [config.tableName]: itemKeys.slice(index, index + 25).map((Key) => ({ DeleteRequest: { Key: { ...Key } } })),
      };
      while (requests && Object.keys(requests).length > 0) {
        const result = await dynamoDocumentClient().send(new BatchWriteCommand({ RequestItems: requests }));
        requests = result.UnprocessedItems as typeof requests;
      }
    }
  },

  /** A ConditionCheck for a table delete: no creation may be running. */
  noActiveCreation(tenantId: string, dataTableId: number): TransactItem {
    return {
      ConditionCheck: {
        TableName: config.tableName,
        Key: keys.childrenHead(tenantId, KIND, dataTableId),
        ConditionExpression: 'attribute_not_exists(active_job)',
      },
    };
  },
};

export const analyses = {
  /**
   * Starts a schema analysis of a ready version: one at a time (20-1065), none after a FULL
   * one (20-1066). A run whose worker went silent no longer blocks.
   */
  async begin(tenantId: string, dataTableId: number, versionNumber: number, depth: SchemaAnalysisDepth): Promise<JobRef> {
    const jobId = `schema-analysis-${randomUUID()}`;
    const created = new Date().toISOString();
    const staleBefore = new Date(now() - abandonedAfterSeconds(inactivity()) * 1000).toISOString();
    const outcome = await transactWrite([
      {
        Update: {
          TableName: config.tableName,
          Key: keys.version(tenantId, KIND, dataTableId, versionNumber),
          UpdateExpression: 'SET analysis_execution = :pending, analysis_requested_depth = :depth',
          ConditionExpression:
            '#execution.#status = :completed AND (attribute_not_exists(analysis_depth) OR analysis_depth <> :full) AND ' +
            '(attribute_not_exists(analysis_execution) OR NOT analysis_execution.#status IN (:pendingStatus, :running) OR analysis_execution.heartbeat_date < :staleBefore)',
          ExpressionAttributeNames: { '#execution': 'execution', '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': pendingExecution(jobId, created),
            ':depth': depth,
            ':completed': 'COMPLETED',
            ':full': 'FULL',
            ':pendingStatus': 'PENDING',
            ':running': 'IN_PROGRESS',
            ':staleBefore': staleBefore,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ]);
    if (outcome.committed) return analysisJobRef(tenantId, dataTableId, versionNumber, jobId);
    const old = failedAt(outcome, 0)?.item;
    if (!old) throw new AppError('10-404', { params: ['data version', `${dataTableId}/${versionNumber}`] });
    const version = toVersion(old);
    if (version.execution.status !== 'COMPLETED') throw notReady(dataTableId, version);
    if (version.analysis_depth === 'FULL') throw new AppError('20-1066');
    throw new AppError('20-1065');
  },
};

/** A version without data to read: still being created (20-1029) or failed (20-1059). */
function notReady(dataTableId: number, version: StoredVersion): AppError {
  const creating = version.execution.status === 'PENDING' || version.execution.status === 'IN_PROGRESS';
  return creating ? new AppError('20-1029') : new AppError('20-1059', { params: [dataTableId, version.version_number] });
}
