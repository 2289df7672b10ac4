import { importJob } from '../../shared/data-tables/jobs';
import { importDataVersion, removeImportedFiles } from '../../shared/data-tables/import-work';
import { jobWorker } from '../../shared/job-workers/worker-step';
import { handOverImported } from '../../shared/schedules/new-version';

/**
 * The import step: the version's data read, loaded and written (shared/data-tables/import-work.ts);
 * once the version is COMPLETED, it is handed to the schedules that build datasets on a new
 * version of its table (shared/schedules/new-version.ts).
 */
export const handler = jobWorker(importJob, { stage: 'READING', percent: 0 }, importDataVersion, {
  onFailure: removeImportedFiles,
  onCompleted: handOverImported,
});
