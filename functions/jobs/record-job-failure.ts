import { recordJobFailure } from '../../shared/jobs/failure';

/** The state machines' Catch target: the caught failure recorded in the job's execution (shared/jobs/failure.ts). */
export const handler = recordJobFailure;
