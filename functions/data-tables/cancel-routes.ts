import { importJob, schemaAnalysisJob } from '../../shared/data-tables/jobs';
import { defineRoute } from '../../shared/http/route';
import { DataVersion, SchemaAnalysisStatus, VersionParams } from '../../shared/model/data-table';

const tag = 'data-tables';
const VERSION_PATH = '/data-tables/{data_table_id}/versions/{version_number}';

/** How every cancel behaves (docs/decisions.md, "Cancelling a job"). */
export const CANCEL_DESCRIPTION =
  'The job ends ABORTED (execution.error 10-444) and its worker stops within seconds; what it had written is removed and its CPU time so far is counted. A repeated cancel answers the same 200; a job that already ended COMPLETED or FAILED is refused with 409 90-1001 naming its status.';

/** Cancelling the jobs of a data version: its import and its schema analysis (shared/jobs/cancel.ts). */
export const dataTableCancelRoutes = {
  cancelImport: defineRoute({
    operationId: 'cancelDataVersionImport',
    method: 'POST',
    path: `${VERSION_PATH}/cancel`,
    summary: 'Cancel the import of a data version',
    description: `${CANCEL_DESCRIPTION} The version stays, ABORTED, without data: its preview, sample, analysis, export and transfer answer 10-444. Delete it like any version.`,
    tag,
    handler: 'data-tables/cancel-import',
    permission: 'data:write',
    request: { params: VersionParams },
    response: { status: 200, description: 'The version, its import ABORTED', body: DataVersion },
    errors: ['90-1001', '10-404'],
    access: { table: 'write', stopsJobs: [importJob] },
  }),
  cancelAnalysis: defineRoute({
    operationId: 'cancelSchemaAnalysis',
    method: 'POST',
    path: `${VERSION_PATH}/schema-analysis/cancel`,
    summary: 'Cancel the schema analysis of a data version',
    description: `${CANCEL_DESCRIPTION} The result of an earlier analysis that succeeded stays; without one, the result answers 10-444.`,
    tag,
    handler: 'data-tables/cancel-analysis',
    permission: 'data:write',
    request: { params: VersionParams },
    response: { status: 200, description: 'The analysis status, ABORTED', body: SchemaAnalysisStatus },
    errors: ['90-1001', '10-404', '20-1025'],
    access: { table: 'write', stopsJobs: [schemaAnalysisJob] },
  }),
};
