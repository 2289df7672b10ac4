import type * as z from 'zod';
import { config } from '../config';
import type { Actor } from '../db/actor';
import { is } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { checkBeforeWrite, parseItem } from '../db/items';
import { keys, type JobKind } from '../db/keys';
import { queryItems, readItem } from '../db/table';
import { transactWrite, tx } from '../db/transactions';
import { AppError, notFound } from '../errors/app-error';
import { newJobId, type JobDeclaration } from '../jobs/define-job';
import type { JobRef } from '../jobs/job-ref';
import { markFailed, pendingExecution, type StoredExecution } from '../jobs/status';
import { executionView, isAbandoned } from '../jobs/view';
import type { JobExecution } from '../model/job';
import { open, seal, type EncryptionContext } from '../secrets/envelope';
import { StoredDirectExport, StoredJobSecret, StoredMultiPartExport } from './items';
import { directExportJob, multiPartExportJob } from './jobs';

/**
 * Export jobs that are their own resource (direct and multi-part exports): the job item,
 * created PENDING together with its sealed credentials in one transaction, and read back by
 * job id within the caller's tenant.
 */
const JOBS: Readonly<Record<JobKind, JobDeclaration>> = {
  DIRECT_EXPORT: directExportJob,
  MULTI_PART_EXPORT: multiPartExportJob,
};

/** The schema of each kind's job item: what begin checks it writes, and what its readers parse. */
const ITEM_SCHEMAS: Readonly<Record<JobKind, z.ZodType<Record<string, unknown>>>> = {
  DIRECT_EXPORT: StoredDirectExport,
  MULTI_PART_EXPORT: StoredMultiPartExport,
};

/** Past the longest a job's state machine may run (an hour), with room for its failure recorder. */
const SECRET_TTL_SECONDS = 2 * 3600;

/** The entity name of errors and of the encryption context. */
const ENTITY_NAMES: Readonly<Record<JobKind, string>> = {
  DIRECT_EXPORT: 'direct export',
  MULTI_PART_EXPORT: 'multi-part export',
};

export function exportJobRef(tenantId: string, kind: JobKind, jobId: string): JobRef {
  return {
    tenant_id: tenantId,
    job_id: jobId,
    kind: JOBS[kind].name,
    subject: keys.job(tenantId, kind, jobId),
    attribute: 'execution',
    secret: keys.jobSecret(tenantId, kind, jobId),
  };
}

/** Binds the sealed credentials to their tenant and job: copied to another item, they do not open. */
function secretContext(tenantId: string, kind: JobKind, jobId: string): EncryptionContext {
  return { tenant_id: tenantId, entity: kind.toLowerCase(), entity_id: jobId };
}

/** The fields every export job item has, which begin fills in. */
interface JobBase {
  readonly job_id: string;
  readonly execution: StoredExecution;
  readonly created_by: Actor;
  readonly created_date: string;
}

/**
 * Creates a PENDING export job with its credentials sealed beside it. The caller starts the
 * state machine with the returned reference.
 */
export async function beginExportJob<F extends object>(
  tenantId: string,
  kind: JobKind,
  actor: Actor,
  fields: F,
  credentials: object,
): Promise<{ readonly ref: JobRef; readonly item: F & JobBase }> {
  const jobId = newJobId(JOBS[kind]);
  const created = new Date().toISOString();
  const item = {
    ...fields,
    job_id: jobId,
    execution: pendingExecution(jobId, created),
    created_by: actor,
    created_date: created,
  };
  const sealed = await seal(JSON.stringify(credentials), secretContext(tenantId, kind, jobId));
  const ref = exportJobRef(tenantId, kind, jobId);
  const expiresAt = Math.floor(Date.now() / 1000) + SECRET_TTL_SECONDS;
  const bookkeeping = { kind, tenant_id: tenantId };
  const job = { ...bookkeeping, ...checkBeforeWrite(ITEM_SCHEMAS[kind], kind, 'job', item) };
  const secret = new ItemType(kind, StoredJobSecret).attributes({ sealed, expires_at: expiresAt }, bookkeeping);
  const outcome = await transactWrite([
    tx.put(ref.subject, job, { when: is.absent('pk') }),
    tx.put(keys.jobSecret(tenantId, kind, jobId), secret),
  ]);
  if (!outcome.committed) throw new Error(`export job ${jobId} already exists`);
  return { ref, item };
}

/** The job item as stored, 10-404 when the tenant has no such job. */
export async function readExportJob<T extends { readonly execution: StoredExecution }>(
  tenantId: string,
  kind: JobKind,
  schema: z.ZodType<T>,
  jobId: string,
): Promise<T> {
  const stored = await readItem(keys.job(tenantId, kind, jobId));
  if (!stored) throw notFound(ENTITY_NAMES[kind], jobId);
  return parseItem(schema, kind, stored);
}

/**
 * The job item, 10-404 when the tenant has no such job. A job whose worker went silent is
 * recorded as failed here (which deletes its credentials), as its readers already see it.
 */
export async function getExportJob<T extends { readonly execution: StoredExecution }>(
  tenantId: string,
  kind: JobKind,
  schema: z.ZodType<T>,
  jobId: string,
): Promise<{ readonly item: T; readonly execution: JobExecution }> {
  const ref = exportJobRef(tenantId, kind, jobId);
  const item = await readExportJob(tenantId, kind, schema, jobId);
  const now = Date.now();
  const execution = executionView(item.execution, now, config.jobInactivitySeconds);
  if (isAbandoned(item.execution, now, config.jobInactivitySeconds) && execution.error)
    await markFailed(ref, execution.error);
  return { item, execution };
}

/** The job's credentials in clear, for its worker; gone once the job has ended. */
export async function openJobCredentials<T>(ref: JobRef, kind: JobKind, schema: z.ZodType<T>): Promise<T> {
  if (!ref.secret) throw new Error(`job ${ref.job_id} has no credentials`);
  const stored = await new ItemType(kind, StoredJobSecret).find(ref.secret);
  if (!stored)
    throw new AppError('10-500', { extraDetails: { cause: 'the export credentials are gone: the job already ended' } });
  const { sealed } = stored;
  return schema.parse(JSON.parse(await open(sealed, secretContext(ref.tenant_id, kind, ref.job_id))));
}

/** What a listing of a kind's export jobs reads of each: never its credentials (of their items the projection gives the key alone). */
const ListedExportJob = StoredDirectExport.pick({ job_id: true, shape: true });

/**
 * The tenant's export jobs of one kind, each its job id and shape (what it exports), in job id
 * order: what the lineage of a data version lists downstream (shared/lineage/downstream.ts).
 */
export async function listExportJobs(
  tenantId: string,
  kind: JobKind,
): Promise<readonly z.infer<typeof ListedExportJob>[]> {
  const items = await queryItems(keys.jobs(tenantId, kind), { projection: ['sk', 'job_id', 'shape'] });
  return items
    .filter((item) => !keys.isJobSecret(String(item.sk)))
    .map(({ job_id, shape }) => parseItem(ListedExportJob, kind, { job_id, shape }));
}
