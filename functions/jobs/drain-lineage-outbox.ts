import { installGuardedDelivery } from '../../shared/openlineage/guarded-delivery';
import { drainOutbox } from '../../shared/openlineage/outbox-drain';

// The queued events go to tenants' own endpoints, through the outbound guard (docs/lineage.md).
installGuardedDelivery();

/**
 * The OpenLineage outbox's drain, run every minute (DRAIN_LINEAGE_OUTBOX in functions/jobs.ts):
 * sends the FAIL and ABORT events queued for tenants' own endpoints by whichever process ended
 * the job (shared/openlineage/outbox-drain.ts). Its input (the scheduled event) is not read.
 */
export const handler = async (): Promise<unknown> => drainOutbox();
