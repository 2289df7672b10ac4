import { config } from '../config';
import type { Actor } from '../db/actor';
import { allOf, anyOf, is, not, type Condition } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { checkBeforeWrite } from '../db/items';
import { deleteItems } from '../db/purge';
import { keys, type TopLevelKind } from '../db/keys';
import { failedAt, transactWrite, tx, type TransactItem } from '../db/transactions';
import { AppError, notFound } from '../errors/app-error';
import { newJobId } from '../jobs/define-job';
import type { JobRef } from '../jobs/job-ref';
import { markFailed, pendingExecution } from '../jobs/status';
import { abandonedAfterSeconds, executionView, isAbandoned, isRunning } from '../jobs/view';
import type { SchemaAnalysisDepth } from '../model/columns';
import { LATEST_VERSION, LatestVersion, StoredVersion, VersionHead, latestVersionOf } from './items';
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

/** A data version's item and its table's head: what reads parse and writes are checked with. */
const versionItems = new ItemType('DATA_VERSION', StoredVersion);
const heads = new ItemType(KIND, VersionHead);

/**
 * Versions of a table in number order: all pages; or `limit` a page, until `enough` says the
 * versions read so far suffice (by default, once `limit` are read).
 */
function queryVersions(
  tenantId: string,
  dataTableId: number,
  options: { newestFirst: boolean; limit?: number; enough?: (versions: readonly StoredVersion[]) => boolean },
): Promise<StoredVersion[]> {
  const enough = options.enough ?? ((read) => options.limit !== undefined && read.length >= options.limit);
  return versionItems.query(keys.children(tenantId, KIND, dataTableId), keys.VERSION_PREFIX, {
    newestFirst: options.newestFirst,
    pageSize: options.limit,
    enough,
  });
}

async function readHead(tenantId: string, dataTableId: number): Promise<VersionHead> {
  return (await heads.find(keys.childrenHead(tenantId, KIND, dataTableId))) ?? {};
}

/** The table's copy of its latest version, set to `latest` while `when` holds. */
function latestCopy(tenantId: string, dataTableId: number, latest: LatestVersion, when: Condition): TransactItem {
  const copy = checkBeforeWrite(LatestVersion, KIND, 'latest version', latest);
  return tx.update(keys.entity(tenantId, KIND, dataTableId), { set: { [LATEST_VERSION]: copy } }, { when });
}

/** The head's claim of a creation goes, while it is still this job's. */
function releaseCreation(tenantId: string, dataTableId: number, jobId: string): TransactItem {
  return tx.update(
    keys.childrenHead(tenantId, KIND, dataTableId),
    { remove: ['active_job'] },
    { when: is.equal('active_job.job_id', jobId) },
  );
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
  const named = is.equal(`${LATEST_VERSION}.version_number`, removed);
  if (!previous)
    return [tx.update(keys.entity(tenantId, KIND, dataTableId), { remove: [LATEST_VERSION] }, { when: named })];
  const { execution } = previous;
  const unchanged = tx.check(
    keys.version(tenantId, KIND, dataTableId, previous.version_number),
    allOf(
      is.equal('execution.job_id', execution.job_id),
      is.equal('execution.status', execution.status),
      is.equal('execution.heartbeat_date', execution.heartbeat_date),
    ),
  );
  return [latestCopy(tenantId, dataTableId, latestVersionOf(previous), named), unchanged];
}

/** When an older version goes, the table's copy must still name another (the newest) one. */
function latestStays(tenantId: string, dataTableId: number, removed: number): TransactItem[] {
  return [tx.check(keys.entity(tenantId, KIND, dataTableId), is.notEqual(`${LATEST_VERSION}.version_number`, removed))];
}

export const dataVersions = {
  find(tenantId: string, dataTableId: number, versionNumber: number): Promise<StoredVersion | undefined> {
    return versionItems.find(keys.version(tenantId, KIND, dataTableId, versionNumber));
  },

  async get(tenantId: string, dataTableId: number, versionNumber: number): Promise<StoredVersion> {
    const version = await dataVersions.find(tenantId, dataTableId, versionNumber);
    if (!version) throw dataVersionNotFound(dataTableId, versionNumber);
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
      const claimed = heads.changes({
        set: { version_count: versionNumber, active_job: { job_id: jobId, version_number: versionNumber } },
      });
      const writes: TransactItem[] = [
        tx.update(keys.childrenHead(tenantId, KIND, dataTableId), claimed, {
          when: allOf(
            previous === 0 ? is.absent('version_count') : is.equal('version_count', previous),
            is.absent('active_job'),
          ),
        }),
        latestCopy(tenantId, dataTableId, latestVersionOf(version), is.present('pk')),
        tx.put(
          keys.version(tenantId, KIND, dataTableId, versionNumber),
          versionItems.attributes(version, { kind: versionItems.kind, tenant_id: tenantId }),
          { when: is.absent('pk') },
        ),
      ];
      const outcome = await transactWrite(writes);
      if (outcome.committed) return { version, job: importJobRef(tenantId, dataTableId, versionNumber, jobId) };
      if (failedAt(outcome, 1)) throw notFound('data table', dataTableId);
      // The head moved under us: another creation started (seen on the next read) or finished.
    }
    throw creationInProgress();
  },

  /** Fails a creation whose worker went silent, releasing the table; otherwise 20-1029. */
  async recoverAbandoned(
    tenantId: string,
    dataTableId: number,
    active: NonNullable<VersionHead['active_job']>,
  ): Promise<void> {
    const running = await dataVersions.find(tenantId, dataTableId, active.version_number);
    if (running && !isAbandoned(running.execution, now(), inactivity())) throw creationInProgress();
    const ref = importJobRef(tenantId, dataTableId, active.version_number, active.job_id);
    const view = running ? executionView(running.execution, now(), inactivity()) : undefined;
    if (view?.error) await markFailed(ref, view.error);
    if (!running) {
      // The head names a version that is gone: release it directly.
      await transactWrite([releaseCreation(tenantId, dataTableId, active.job_id)]);
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
      if (isRunning(version.execution, now(), inactivity())) throw creationInProgress();
      const abandoned = isAbandoned(version.execution, now(), inactivity());
      if ((version.ref_datasets ?? 0) > 0) throw new AppError('20-1024', { params: [dataTableId, versionNumber] });
      const [newest, previous] = await queryVersions(tenantId, dataTableId, { newestFirst: true, limit: 2 });
      const asRead = allOf(
        is.equal('execution.job_id', version.execution.job_id),
        is.equal('execution.status', version.execution.status),
        is.count('ref_datasets', 0),
      );
      const writes: TransactItem[] = [
        tx.delete(keys.version(tenantId, KIND, dataTableId, versionNumber), { when: asRead }),
        ...(newest?.version_number === versionNumber
          ? latestMovesBack(tenantId, dataTableId, versionNumber, previous)
          : latestStays(tenantId, dataTableId, versionNumber)),
      ];
      if (abandoned) {
        // An abandoned creation: its claim on the table goes with it.
        writes.push(releaseCreation(tenantId, dataTableId, version.execution.job_id));
      }
      const outcome = await transactWrite(writes);
      if (outcome.committed) return;
      if (failedAt(outcome, 0) || (abandoned && failedAt(outcome, writes.length - 1))) {
        const current = await dataVersions.find(tenantId, dataTableId, versionNumber);
        if (!current) throw dataVersionNotFound(dataTableId, versionNumber);
        if ((current.ref_datasets ?? 0) > 0) throw new AppError('20-1024', { params: [dataTableId, versionNumber] });
        throw creationInProgress();
      }
      // The table's latest version changed meanwhile (an import began, another version went): read again.
    }
    throw creationInProgress();
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
    return tx.check(keys.childrenHead(tenantId, KIND, dataTableId), is.absent('active_job'));
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
    const startable = allOf(
      is.equal('execution.status', 'COMPLETED'),
      anyOf(is.absent('analysis_depth'), is.notEqual('analysis_depth', 'FULL')),
      anyOf(
        is.absent('analysis_execution'),
        not(is.oneOf('analysis_execution.status', ['PENDING', 'IN_PROGRESS'])),
        is.less('analysis_execution.heartbeat_date', staleBefore),
      ),
    );
    const started = versionItems.changes({
      set: { analysis_execution: pendingExecution(jobId, created), analysis_requested_depth: depth },
    });
    const outcome = await transactWrite([
      tx.update(keys.version(tenantId, KIND, dataTableId, versionNumber), started, {
        when: startable,
        returnOld: true,
      }),
    ]);
    if (outcome.committed) return analysisJobRef(tenantId, dataTableId, versionNumber, jobId);
    const old = failedAt(outcome, 0)?.item;
    if (!old) throw dataVersionNotFound(dataTableId, versionNumber);
    const version = versionItems.read(old);
    if (version.execution.status !== 'COMPLETED') throw notReady(dataTableId, version);
    if (version.analysis_depth === 'FULL') throw new AppError('20-1066');
    throw new AppError('20-1065');
  },
};

/** 20-1029: an import of the table's version is still running, so nothing else may start or remove it. */
export function creationInProgress(): AppError {
  return new AppError('20-1029');
}

/** 10-404 for a data version that does not exist, or is another tenant's. */
export function dataVersionNotFound(dataTableId: number, versionNumber: number): AppError {
  return notFound('data version', `${dataTableId}/${versionNumber}`);
}

/** A version without data to read: still being created (20-1029), cancelled (10-444) or failed (20-1059). */
export function notReady(dataTableId: number, version: StoredVersion): AppError {
  if (version.execution.status === 'ABORTED')
    return new AppError('10-444', { extraDetails: { job_id: version.execution.job_id } });
  const creating = version.execution.status === 'PENDING' || version.execution.status === 'IN_PROGRESS';
  return creating ? creationInProgress() : new AppError('20-1059', { params: [dataTableId, version.version_number] });
}
