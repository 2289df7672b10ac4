import { describe, expect, it } from 'vitest';
import { jobs } from '../../../functions/jobs';
import { importJob } from '../../../shared/data-tables/jobs';
import { recipeRunJob } from '../../../shared/datasets/jobs';
import { directExportJob, multiPartExportJob, targetExportJob } from '../../../shared/exports/jobs';
import { LINEAGE_JOB_KINDS } from '../../../shared/openlineage/job-kinds';
import { transferJob } from '../../../shared/transfers/jobs';

describe('the jobs that send OpenLineage run events', () => {
  it('are named as the import, recipe run, export and transfer declarations name them, and are declared jobs', () => {
    const declared = [importJob, recipeRunJob, targetExportJob, directExportJob, multiPartExportJob, transferJob];
    expect([...LINEAGE_JOB_KINDS].sort()).toEqual(declared.map((job) => job.name).sort());
    const names = new Set(jobs.map((job) => job.name));
    for (const kind of LINEAGE_JOB_KINDS) expect(names.has(kind), kind).toBe(true);
  });
});
