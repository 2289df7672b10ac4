import * as z from 'zod';
import type { Actor } from '../db/actor';
import type { Entity } from '../db/entity-store';
import type { IdempotentRequest } from '../db/idempotent-create';
import { keys } from '../db/keys';
import { defineEntity, listField } from '../http/define-entity';
import { newJobId } from '../jobs/define-job';
import type { JobRef } from '../jobs/job-ref';
import { markFailed, pendingExecution, StoredExecution } from '../jobs/status';
import { executionView, isAbandoned } from '../jobs/view';
import { config } from '../config';
import type { JobExecution } from '../model/job';
import { targetClaim, targetClaimOf } from '../targets/store';
import { ExportShape, targetExportJob } from './jobs';

/**
 * Exports to targets (POST /exports): entities with ids, whose job status lives on their own
 * item (the `execution` mirror). An export claims its target in the transaction that creates
 * it, so the target cannot change while the export may write to it (30-6005), and the job
 * releases the claim in the transaction that ends it (JobRef.claim).
 */
export const ExportItemData = z.object({
  /** The job id: exports have no name of their own, and the store's name claim keeps it unique. */
  name: z.string(),
  target_id: z.int(),
  /** Names as they were when the export was created: the target or connection may change or go later. */
  target_name: z.string(),
  connection_id: z.int(),
  connection_name: z.string(),
  source_name: z.string(),
  shape: ExportShape,
});
export type ExportData = z.infer<typeof ExportItemData>;

export const ExportMirrors = z.object({
  execution: StoredExecution,
  /** Set with COMPLETED: where the data went. */
  exported_table_name: z.string().optional(),
  data_target_details: z.record(z.string(), z.string()).optional(),
});
export type ExportMirrors = z.infer<typeof ExportMirrors>;

type ExportEntity = Entity<ExportData, ExportMirrors>;

/**
 * Exports (to targets) as stored and listed, the light part of their declaration; entity.ts
 * completes it with their responses (DeclaredEntity.with). Status is the stored job status.
 */
export const storedExports = defineEntity({
  kind: 'EXPORT',
  label: 'export',
  data: ExportItemData,
  mirrors: ExportMirrors.partial(),
  references: {},
  list: {
    id: listField.integer((entity: ExportEntity) => entity.id),
    target_id: listField.integer((entity: ExportEntity) => entity.data.target_id),
    source_type: listField.text((entity: ExportEntity) => entity.data.shape.source_type),
    source_id: listField.integer((entity: ExportEntity) => entity.data.shape.source_id),
    source_version: listField.integer((entity: ExportEntity) => entity.data.shape.source_version),
    status: listField.text((entity: ExportEntity) => entity.mirrors.execution?.status ?? null),
    created_date: listField.datetime((entity: ExportEntity) => entity.created_date),
    last_modified_date: listField.datetime((entity: ExportEntity) => entity.last_modified_date),
  },
});

export const exportStore = storedExports.store;

export function targetExportRef(tenantId: string, exportId: number, jobId: string, targetId: number): JobRef {
  return {
    tenant_id: tenantId,
    job_id: jobId,
    kind: targetExportJob.name,
    subject: keys.entity(tenantId, 'EXPORT', exportId),
    attribute: 'execution',
    claim: targetClaimOf(tenantId, targetId),
  };
}

/**
 * Creates the export PENDING and claims its target in one transaction: the target must still
 * be as it was read (`targetLockVersion`; 10-1006 otherwise) and exist (30-6002).
 */
export async function beginTargetExport(
  tenantId: string,
  actor: Actor,
  data: Omit<ExportData, 'name'>,
  targetLockVersion: number,
  idempotency: IdempotentRequest | undefined,
): Promise<{ readonly entity: Entity<ExportData, ExportMirrors>; readonly ref: JobRef; readonly replayed: boolean }> {
  const jobId = newJobId(targetExportJob);
  const { entity, replayed } = await exportStore.create(tenantId, actor, () => ({ ...data, name: jobId }), {
    related: targetClaim(tenantId, data.target_id, jobId, { seenLockVersion: targetLockVersion }),
    mirrors: () => ({ execution: pendingExecution(jobId, new Date().toISOString()) }),
    ...(idempotency ? { idempotency } : {}),
  });
  return { entity, ref: targetExportRef(tenantId, entity.id, entity.data.name, entity.data.target_id), replayed };
}

/** The export's job status as callers see it; a silent job is failed here, which releases its target. */
export async function exportExecution(
  tenantId: string,
  entity: Entity<ExportData, ExportMirrors>,
): Promise<JobExecution> {
  const stored = entity.mirrors.execution;
  if (!stored) throw new Error(`export ${entity.id} has no execution`);
  const now = Date.now();
  const execution = executionView(stored, now, config.jobInactivitySeconds);
  if (isAbandoned(stored, now, config.jobInactivitySeconds) && execution.error) {
    await markFailed(targetExportRef(tenantId, entity.id, stored.job_id, entity.data.target_id), execution.error);
  }
  return execution;
}
