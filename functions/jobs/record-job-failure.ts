import { jobErrorFromState, recordJobFailure, type FailureInput } from '../../shared/jobs/failure';
import { flushRunEvents, sendRunEvent } from '../../shared/openlineage/emit';
import { describeJob } from '../../shared/openlineage/job-datasets';

/**
 * The state machines' Catch target: the caught failure recorded in the job's execution
 * (shared/jobs/failure.ts), then, when this call recorded it, the run's FAIL event for
 * OpenLineage (docs/lineage.md) with the code and message the execution shows.
 */
export async function handler(input: FailureInput): ReturnType<typeof recordJobFailure> {
  const result = await recordJobFailure(input);
  if (result.recorded) {
    sendRunEvent(input.job.tenant_id, async () => {
      const { message } = jobErrorFromState(input.failure ?? {});
      return describeJob('FAIL', input.job, input.params, { code: result.code, message });
    });
    await flushRunEvents();
  }
  return result;
}
