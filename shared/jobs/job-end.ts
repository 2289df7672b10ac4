import { config } from '../config';
import type { JobRef } from './job-ref';
import type { JobError } from '../model/job';
import { sendRunEnd } from '../openlineage/emit';
import { LINEAGE_JOB_KINDS } from '../openlineage/job-kinds';

/**
 * The run event of a job that ended without completing: ABORT when a user cancelled it, FAIL
 * when its failure was recorded, by whichever path recorded it (the failure recorder, a
 * Fargate task, a start that failed, a reader that found the job abandoned). Sent by the one
 * status write that ended the job (shared/jobs/status.ts), only when that write committed, so
 * once per run however many readers race.
 *
 * It names the run, the job and the error, not the datasets: the paths that end a job know its
 * reference, not its parameters, and the job's START named them. Every event says so
 * (jobType's emissionPattern ACCUMULATIVE: a consumer combines a run's events).
 *
 * Resolves once the event is on its way: for a tenant with its own endpoint, written to the
 * outbox a worker drains (the writer may be an API route, without the outbound guard).
 */
export function sendJobEnd(ref: JobRef, status: 'FAILED' | 'ABORTED', error: JobError): Promise<void> {
  return sendRunEnd(ref.tenant_id, async () => {
    if (!LINEAGE_JOB_KINDS.has(ref.kind)) return undefined;
    return {
      eventType: status === 'ABORTED' ? 'ABORT' : 'FAIL',
      jobId: ref.job_id,
      kind: ref.kind,
      tenantId: ref.tenant_id,
      namespace: config.openLineage.namespace,
      inputs: [],
      outputs: [],
      error: { code: error.code, message: error.message },
    };
  });
}
