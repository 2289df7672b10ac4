import { GetCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import type { Actor } from '../db/actor';
import { parseItem } from '../db/items';
import { deleteItems } from '../db/purge';
import { keys, type EntityKind, type TopLevelKind } from '../db/keys';
import { failedAt, transactWrite, type TransactItem } from '../db/transactions';
import { AppError } from '../errors/app-error';
import { newJobId } from '../jobs/define-job';
import type { JobRef } from '../jobs/job-ref';
import { markFailed, pendingExecution } from '../jobs/status';
import { abandonedAfterSeconds, executionView, isAbandoned, isRunning } from '../jobs/view';
import type { SchemaAnalysisDepth } from '../model/columns';
import { LATEST_VERSION, StoredVersion, VersionHead, latestVersionOf } from './items';
import { importJob, schemaAnalysisJob } from './jobs';

export type { StoredVersion, VersionMetadata } from './items';

/**
 * Data versions (spec 2.6) in their table's item collection, next to a head item that
 * numbers them and admits one creation at a time (items.ts). A version is allocated, its
 * head claimed and its table's copy of the latest version set in one transaction, so two
 * concurrent imports of one table cannot both start (20-1029) and numbers never repeat.
 */
const KIND: TopLevelKind = 'DATA_TABLE';
const BEGIN_ATTEMPTS = 4;
const REMOVE_ATTEMPTS = 4;

const now = () => Date.now();
const inactivity = () => config.jobInactivitySeconds;

export function importJobRef(tenantId: string, dataTableId: number, versionNumber: number, jobId: string): JobRef {
  return {
    tenant_id: tenantId,
    job_id: jobId,
    kind: importJob.name,
    subject: keys.version(tenantId, KIND, dataTableId, versionNumber),
    attribute: 'execution',
    lock: keys.childrenHead(tenantId, KIND, dataTableId),
    // The import writes the version the table item shows as its latest (begin set that copy).
    mirror: { item: keys.entity(tenantId, KIND, dataTableId), attribute: LATEST_VERSION },
  };
}

export function analysisJobRef(tenantId: string, dataTableId: number, versionNumber: number, jobId: string): JobRef {
  return {
    tenant_id: tenantId,
    job_id: jobId,
    kind: schemaAnalysisJob.name,
    subject: keys.version(tenantId, KIND, dataTableId, versionNumber),
    attribute: 'analysis_execution',
  };
}

/** Versions read per page when looking for the newest COMPLETED one: usually the newest is. */
const NEWEST_COMPLETED_PAGE = 4;

function toVersion(item: Record<string, unknown>): StoredVersion {
  return parseItem(StoredVersion, 'DATA_VERSION', item);
}

/**
 * Versions of a table in number order: all pages; or `limit` a page, until `enough` says the
 * versions read so far suffice (by default, once `limit` are read).
 */
async function queryVersions(
  tenantId: string,
  dataTableId: number,
  options: { newestFirst: boolean; limit?: number; enough?: (versions: readonly StoredVersion[]) => boolean },
): Promise<StoredVersion[]> {
  const versions: StoredVersion[] = [];
  const enough = options.enough ?? ((read) => options.limit !== undefined && read.length >= options.limit);
  let cursor: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page = await dynamoDocumentClient().send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': keys.children(tenantId, KIND, dataTableId),
          ':prefix': keys.VERSION_PREFIX,
        },
        ConsistentRead: true,
        ScanIndexForward: !options.newestFirst,
        Limit: options.limit,
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) versions.push(toVersion(item));
    cursor = enough(versions) ? undefined : page.LastEvaluatedKey;
  } while (cursor);
  return versions;
}

async function readHead(tenantId: string, dataTableId: number): Promise<VersionHead> {
  const result = await dynamoDocumentClient().send(
    new GetCommand({
      TableName: config.tableName,
      Key: keys.childrenHead(tenantId, KIND, dataTableId),
      ConsistentRead: true,
    }),
  );
  return result.Item ? parseItem(VersionHead, KIND, result.Item) : {};
}

/**
 * The table's copy of its latest version when the newest version goes: the one before it
 * takes its place (as read, and checked unchanged: a finished version's execution no longer
 * moves), or there is none left.
 */
function latestMovesBack(
  tenantId: string,
  dataTableId: number,
  removed: number,
  previous: StoredVersion | undefined,
): TransactItem[] {
  const TableName = config.tableName;
  const table: TransactItem = {
    Update: {
      TableName,
      Key: keys.entity(tenantId, KIND, dataTableId),
      UpdateExpression: previous ? 'SET #latest = :previous' : 'REMOVE #latest',
      ConditionExpression: '#latest.version_number = :removed',
      ExpressionAttributeNames: { '#latest': LATEST_VERSION },
      ExpressionAttributeValues: {
        ':removed': removed,
        ...(previous ? { ':previous': latestVersionOf(previous) } : {}),
      },
    },
  };
  if (!previous) return [table];
  const { execution } = previous;
  const unchanged: TransactItem = {
    ConditionCheck: {
      TableName,
      Key: keys.version(tenantId, KIND, dataTableId, previous.version_number),
      ConditionExpression:
        '#execution.job_id = :job AND #execution.#status = :status AND #execution.heartbeat_date = :heartbeat',
      ExpressionAttributeNames: { '#execution': 'execution', '#status': 'status' },
      ExpressionAttributeValues: {
        ':job': execution.job_id,
        ':status': execution.status,
        ':heartbeat': execution.heartbeat_date,
      },
    },
  };
  return [table, unchanged];
}

/** When an older version goes, the table's copy must still name another (the newest) one. */
function latestStays(tenantId: string, dataTableId: number, removed: number): TransactItem[] {
  return [
    {
      ConditionCheck: {
        TableName: config.tableName,
        Key: keys.entity(tenantId, KIND, dataTableId),
        ConditionExpression: '#latest.version_number <> :removed',
        ExpressionAttributeNames: { '#latest': LATEST_VERSION },
        ExpressionAttributeValues: { ':removed': removed },
      },
    },
  ];
}

export const dataVersions = {
  async find(tenantId: string, dataTableId: number, versionNumber: number): Promise<StoredVersion | undefined> {
    const result = await dynamoDocumentClient().send(
      new GetCommand({
        TableName: config.tableName,
        Key: keys.version(tenantId, KIND, dataTableId, versionNumber),
        ConsistentRead: true,
      }),
    );
    return result.Item ? toVersion(result.Item) : undefined;
  },

  async get(tenantId: string, dataTableId: number, versionNumber: number): Promise<StoredVersion> {
    const version = await dataVersions.find(tenantId, dataTableId, versionNumber);
    if (!version) throw new AppError('10-404', { params: ['data version', `${dataTableId}/${versionNumber}`] });
    return version;
  },

  /**
   * The table's newest COMPLETED version: read newest first, a few at a time, up to the first
   * one, so that its cost does not grow with the table's history.
   */
  async newestCompleted(tenantId: string, dataTableId: number): Promise<StoredVersion | undefined> {
    const completed = (version: StoredVersion) => version.execution.status === 'COMPLETED';
    const read = await queryVersions(tenantId, dataTableId, {
      newestFirst: true,
      limit: NEWEST_COMPLETED_PAGE,
      enough: (versions) => versions.some(completed),
    });
    return read.find(completed);
  },

  /** Every version of the table, oldest first. */
  async list(tenantId: string, dataTableId: number): Promise<StoredVersion[]> {
    return queryVersions(tenantId, dataTableId, { newestFirst: false });
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
      const jobId = newJobId(importJob);
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
              previous === 0
                ? 'attribute_not_exists(version_count) AND attribute_not_exists(active_job)'
                : 'version_count = :previous AND attribute_not_exists(active_job)',
            ExpressionAttributeValues: {
              ':next': versionNumber,
              ':active': { job_id: jobId, version_number: versionNumber },
              ...(previous === 0 ? {} : { ':previous': previous }),
            },
          },
        },
        {
          Update: {
            TableName,
            Key: keys.entity(tenantId, KIND, dataTableId),
            UpdateExpression: 'SET #latest = :latest',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#latest': LATEST_VERSION },
            ExpressionAttributeValues: { ':latest': latestVersionOf(version) },
          },
        },
        {
          Put: {
            TableName,
            Item: {
              ...keys.version(tenantId, KIND, dataTableId, versionNumber),
              kind: 'DATA_VERSION' satisfies EntityKind,
              tenant_id: tenantId,
              ...version,
            },
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
  async recoverAbandoned(
    tenantId: string,
    dataTableId: number,
    active: NonNullable<VersionHead['active_job']>,
  ): Promise<void> {
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
   * (20-1024). When it is the newest, the one before it becomes the table's latest version
   * in the same transaction. The caller removes its files afterwards.
   */
  async remove(tenantId: string, dataTableId: number, versionNumber: number): Promise<void> {
    for (let attempt = 1; attempt <= REMOVE_ATTEMPTS; attempt += 1) {
      const version = await dataVersions.get(tenantId, dataTableId, versionNumber);
      if (isRunning(version.execution, now(), inactivity())) throw new AppError('20-1029');
      const abandoned = isAbandoned(version.execution, now(), inactivity());
      if ((version.ref_datasets ?? 0) > 0) throw new AppError('20-1024', { params: [dataTableId, versionNumber] });
      const [newest, previous] = await queryVersions(tenantId, dataTableId, { newestFirst: true, limit: 2 });
      const TableName = config.tableName;
      const writes: TransactItem[] = [
        {
          Delete: {
            TableName,
            Key: keys.version(tenantId, KIND, dataTableId, versionNumber),
            ConditionExpression:
              '#execution.job_id = :job AND #execution.#status = :status AND (attribute_not_exists(ref_datasets) OR ref_datasets = :zero)',
            ExpressionAttributeNames: { '#execution': 'execution', '#status': 'status' },
            ExpressionAttributeValues: {
              ':job': version.execution.job_id,
              ':status': version.execution.status,
              ':zero': 0,
            },
          },
        },
        ...(newest?.version_number === versionNumber
          ? latestMovesBack(tenantId, dataTableId, versionNumber, previous)
          : latestStays(tenantId, dataTableId, versionNumber)),
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
      if (failedAt(outcome, 0) || (abandoned && failedAt(outcome, writes.length - 1))) {
        const current = await dataVersions.find(tenantId, dataTableId, versionNumber);
        if (!current) throw new AppError('10-404', { params: ['data version', `${dataTableId}/${versionNumber}`] });
        if ((current.ref_datasets ?? 0) > 0) throw new AppError('20-1024', { params: [dataTableId, versionNumber] });
        throw new AppError('20-1029');
      }
      // The table's latest version changed meanwhile (an import began, another version went): read again.
    }
    throw new AppError('20-1029');
  },

  /** Removes the head and every version item of a deleted table. */
  async purge(tenantId: string, dataTableId: number): Promise<void> {
    const versions = await dataVersions.list(tenantId, dataTableId);
    await deleteItems([
      keys.childrenHead(tenantId, KIND, dataTableId),
      ...versions.map((v) => keys.version(tenantId, KIND, dataTableId, v.version_number)),
    ]);
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
  async begin(
    tenantId: string,
    dataTableId: number,
    versionNumber: number,
    depth: SchemaAnalysisDepth,
  ): Promise<JobRef> {
    const jobId = newJobId(schemaAnalysisJob);
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
export function notReady(dataTableId: number, version: StoredVersion): AppError {
  const creating = version.execution.status === 'PENDING' || version.execution.status === 'IN_PROGRESS';
  return creating
    ? new AppError('20-1029')
    : new AppError('20-1059', { params: [dataTableId, version.version_number] });
}
