import * as z from 'zod';
import { config } from '../config';
import type { Actor } from '../db/actor';
import type { Entity } from '../db/entity-store';
import { allOf, is } from '../db/expressions';
import type { IdempotentRequest } from '../db/idempotent-create';
import { keys } from '../db/keys';
import { defineEntity, listField } from '../http/define-entity';
import { updateItem } from '../db/table';
import { newJobId } from '../jobs/define-job';
import type { JobRef } from '../jobs/job-ref';
import { markFailed, pendingExecution, StoredExecution } from '../jobs/status';
import { executionView, isAbandoned } from '../jobs/view';
import type { JobExecution } from '../model/job';
import { TransferColumn, TransferSourceType } from '../model/transfer';
import { targetClaim, targetClaimOf } from '../targets/store';
import { transferJob } from './jobs';

/**
 * Transfers (POST /transfers): entities with ids whose job status lives on their own item.
 * Like an export to a target, a transfer claims its target in the transaction that creates it
 * (30-6005 for the target's update and delete) and its job releases the claim in the
 * transaction that ends it, completed or failed, the failure recorder's path included
 * (JobRef.claim). Everything the worker needs is fixed here when the transfer starts: the
 * version, the rendered destination and the mapped columns, so a retried worker sends the same
 * rows to the same place.
 */
export const TransferItemData = z.object({
  /** The job id: transfers have no name of their own, and the store's name claim keeps it unique. */
  name: z.string(),
  target_id: z.int(),
  /** Names as they were when the transfer was created: the target or connection may change or go later. */
  target_name: z.string(),
  connection_id: z.int(),
  connection_name: z.string(),
  source_type: TransferSourceType,
  source_id: z.int(),
  source_version: z.int(),
  source_name: z.string(),
  project_path: z.string(),
  table_path: z.string(),
  columns: z.array(TransferColumn),
  rows_total: z.int(),
});
export type TransferData = z.infer<typeof TransferItemData>;

export const TransferMirrors = z.object({
  execution: StoredExecution,
  /** Rows sent, after the latest batch the pricing system took (the progress's rows, kept when the job fails). */
  rows_sent: z.int().optional(),
  /** What the pricing system said it holds after the latest batch the worker sent. */
  rows_accepted: z.int().optional(),
});
export type TransferMirrors = z.infer<typeof TransferMirrors>;
export type TransferEntity = Entity<TransferData, TransferMirrors>;

/**
 * Transfers as stored and listed, the light part of their declaration; entity.ts completes it
 * with their responses (DeclaredEntity.with). Status is the stored job status.
 */
export const storedTransfers = defineEntity({
  kind: 'TRANSFER',
  label: 'transfer',
  data: TransferItemData,
  mirrors: TransferMirrors.partial(),
  references: {},
  list: {
    id: listField.integer((entity: TransferEntity) => entity.id),
    target_id: listField.integer((entity: TransferEntity) => entity.data.target_id),
    source_type: listField.text((entity: TransferEntity) => entity.data.source_type),
    source_id: listField.integer((entity: TransferEntity) => entity.data.source_id),
    source_version: listField.integer((entity: TransferEntity) => entity.data.source_version),
    status: listField.text((entity: TransferEntity) => entity.mirrors.execution?.status ?? null),
    created_date: listField.datetime((entity: TransferEntity) => entity.created_date),
    last_modified_date: listField.datetime((entity: TransferEntity) => entity.last_modified_date),
  },
});

export const transferStore = storedTransfers.store;

export function transferRef(tenantId: string, transferId: number, jobId: string, targetId: number): JobRef {
  return {
    tenant_id: tenantId,
    job_id: jobId,
    kind: transferJob.name,
    subject: keys.entity(tenantId, 'TRANSFER', transferId),
    attribute: 'execution',
    claim: targetClaimOf(tenantId, targetId),
  };
}

/**
 * Creates the transfer PENDING and claims its target in one transaction: the target must
 * still be as it was read (`targetLockVersion`; 10-1006 otherwise) and exist (30-6002).
 * `build` is given the new id, which the destination's {export_id} parameter stands for.
 */
export async function beginTransfer(
  tenantId: string,
  actor: Actor,
  build: (transferId: number) => Omit<TransferData, 'name'>,
  target: { readonly id: number; readonly lockVersion: number },
  idempotency: IdempotentRequest | undefined,
): Promise<{ readonly entity: TransferEntity; readonly ref: JobRef; readonly replayed: boolean }> {
  const jobId = newJobId(transferJob);
  const { entity, replayed } = await transferStore.create(tenantId, actor, (id) => ({ ...build(id), name: jobId }), {
    related: targetClaim(tenantId, target.id, jobId, { seenLockVersion: target.lockVersion }),
    mirrors: () => ({ execution: pendingExecution(jobId, new Date().toISOString()), rows_sent: 0, rows_accepted: 0 }),
    ...(idempotency ? { idempotency } : {}),
  });
  return { entity, ref: transferRef(tenantId, entity.id, entity.data.name, entity.data.target_id), replayed };
}

/** The transfer's job status as callers see it; a silent job is failed here, which releases its target. */
export async function transferExecution(tenantId: string, entity: TransferEntity): Promise<JobExecution> {
  const stored = entity.mirrors.execution;
  if (!stored) throw new Error(`transfer ${entity.id} has no execution`);
  const now = Date.now();
  const execution = executionView(stored, now, config.jobInactivitySeconds);
  if (isAbandoned(stored, now, config.jobInactivitySeconds) && execution.error) {
    await markFailed(transferRef(tenantId, entity.id, stored.job_id, entity.data.target_id), execution.error);
  }
  return execution;
}

/**
 * Records the rows sent and those the pricing system holds, while the job still runs: a late
 * write of a worker whose job already ended changes nothing. Answers whether it was written.
 */
export function recordTransferCounts(
  ref: JobRef,
  counts: { readonly sent: number; readonly accepted: number },
): Promise<boolean> {
  return updateItem(
    ref.subject,
    { set: { rows_sent: counts.sent, rows_accepted: counts.accepted } },
    allOf(is.equal('execution.job_id', ref.job_id), is.equal('execution.status', 'IN_PROGRESS')),
  );
}
