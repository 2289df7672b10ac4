import { importJob } from '../../shared/data-tables/jobs';
import { importDataVersion, removeImportedFiles } from '../../shared/data-tables/import-work';
import { jobWorker } from '../../shared/jobs/worker-step';

/** The import step: the version's data read, loaded and written (shared/data-tables/import-work.ts). */
export const handler = jobWorker(importJob, { stage: 'READING', percent: 0 }, importDataVersion, {
  onFailure: removeImportedFiles,
});
