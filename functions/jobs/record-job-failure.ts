import { recordJobFailure } from '../../shared/jobs/failure';
import { installGuardedDelivery } from '../../shared/openlineage/guarded-delivery';

// The FAIL event may go to a tenant's own endpoint, through the outbound guard (docs/lineage.md).
installGuardedDelivery();

/**
 * The state machines' Catch target: the caught failure recorded in the job's execution
 * (shared/jobs/failure.ts); the status write that records it sends the run's FAIL event for
 * OpenLineage (docs/lineage.md, shared/jobs/job-end.ts).
 */
export const handler = recordJobFailure;
