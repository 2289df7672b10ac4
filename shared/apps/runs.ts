import * as z from 'zod';
import { RecordStore } from '../db/record-store';
import { AppError } from '../errors/app-error';
import type { RunResponse } from '../model/app-install';

/**
 * Runs of an app's declared actions (docs/apps.md), as kept with their outcome, keyed by
 * `<bundle id>#<run id>`. Starting one is run-actions-start.ts, apart so that what only the
 * run route needs (the domain modules of the actions) stays out of the other app functions.
 */
const StoredRun = z.object({
  run_id: z.string(),
  bundle_id: z.int(),
  session_id: z.string(),
  action: z.string(),
  status: z.enum(['COMPLETED', 'FAILED']),
  result: z.json().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  started_date: z.iso.datetime(),
  ended_date: z.iso.datetime(),
}) satisfies z.ZodType<RunResponse>;
export type StoredRun = z.infer<typeof StoredRun>;

const recordId = (bundleId: number, runId: string) => `${bundleId}#${runId}`;
const runs = new RecordStore({
  kind: 'APP_RUN',
  schema: StoredRun,
  idOf: (run) => recordId(run.bundle_id, run.run_id),
});

/** Keeps a run with its outcome (run-actions-start.ts). */
export async function keepRun(tenantId: string, run: StoredRun): Promise<void> {
  await runs.put(tenantId, run);
}

/** A run of the app; 80-8034 when the tenant has none of that id. */
export async function getRun(tenantId: string, bundleId: number, runId: string): Promise<StoredRun> {
  const run = await runs.find(tenantId, recordId(bundleId, runId));
  if (!run) throw new AppError('80-8034');
  return run;
}

/** Removes every run of the install (its uninstall). */
export async function deleteRunsOf(tenantId: string, bundleId: number): Promise<void> {
  const all = await runs.list(tenantId, `${bundleId}#`);
  await Promise.all(all.map((run) => runs.delete(tenantId, recordId(bundleId, run.run_id))));
}
