import { importJob } from '../data-tables/jobs';
import { recipeRunJob } from '../datasets/jobs';
import { directExportJob, multiPartExportJob, targetExportJob } from '../exports/jobs';
import { transferJob } from '../transfers/jobs';

/**
 * The jobs that send OpenLineage run events (docs/lineage.md): imports, recipe runs, exports
 * and transfers. Other jobs (schema analyses, app installs) send none.
 */
export const LINEAGE_JOB_KINDS: ReadonlySet<string> = new Set([
  importJob.name,
  recipeRunJob.name,
  targetExportJob.name,
  directExportJob.name,
  multiPartExportJob.name,
  transferJob.name,
]);
