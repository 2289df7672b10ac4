import * as z from 'zod';
import { importJob } from '../../shared/data-tables/jobs';
import { importDataVersion, removeImportedFiles } from '../../shared/data-tables/import-work';
import { jobWorker } from '../../shared/jobs/worker-step';
import { handOverNewVersion } from '../../shared/schedules/new-version';

/** The import step: the version's data read, loaded and written (shared/data-tables/import-work.ts). */
const importStep = jobWorker(importJob, { stage: 'READING', percent: 0 }, importDataVersion, {
  onFailure: removeImportedFiles,
});

/** What the hand-over reads of the step's input: the tenant and the version (checked by the step already). */
const Imported = z.object({ job: z.object({ tenant_id: z.string() }), params: importJob.params });

/**
 * The import step; once it returns, the version is COMPLETED, and is handed to the schedules
 * that build datasets on a new version of its table (shared/schedules/new-version.ts).
 */
export async function handler(input: unknown): Promise<Awaited<ReturnType<typeof importStep>>> {
  const output = await importStep(input);
  const { job, params } = Imported.parse(input);
  await handOverNewVersion(job.tenant_id, params.data_table_id, params.version_number);
  return output;
}
