import { defineRoute } from '../../shared/http/route';
import { directExportJob, multiPartExportJob } from '../../shared/exports/jobs';
import { DirectExportRequest, DirectExportStatus, ExportJobStarted, JobIdParams, MultiPartExportRequest, MultiPartExportStatus } from '../../shared/model/export';

const tag = 'exports';

/** What the source of any export can be refused for. */
const SOURCE_ERRORS = ['10-404', '10-1501', '20-1016', '20-1029', '20-1031', '20-1059'] as const;

export const exportRoutes = {
  startDirect: defineRoute({
    operationId: 'startDirectExport',
    method: 'POST',
    path: '/exports/direct',
    summary: 'Export a version to an S3-compatible store named in the request',
    description:
      'The credentials are checked with one listing of the bucket (30-1109 for a wrong secret key), encrypted at rest while the job runs, deleted when it ends, and never returned or logged. Poll GET /exports/direct/{job_id}. Send an Idempotency-Key header to make retries safe.',
    tag,
    handler: 'exports/start-direct',
    permission: 'data:write',
    request: { body: DirectExportRequest, idempotent: true },
    response: { status: 202, description: 'Export started', body: ExportJobStarted },
    errors: [...SOURCE_ERRORS, '10-409', '10-1008', '30-1100', '30-1108', '30-1109', '30-1110', '30-1111', '30-1112', '30-1115', '30-1116', '30-1130'],
    access: { table: 'write', dataKey: ['encrypt'], startsJobs: [directExportJob] },
  }),
  getDirect: defineRoute({
    operationId: 'getDirectExport',
    method: 'GET',
    path: '/exports/direct/{job_id}',
    summary: 'Status of a direct export',
    tag,
    handler: 'exports/get-direct',
    permission: 'data:read',
    request: { params: JobIdParams },
    response: { status: 200, description: 'The job status; status.error_code holds a failure', body: DirectExportStatus },
    errors: ['10-404'],
    access: { table: 'write' },
  }),
  startMultiPart: defineRoute({
    operationId: 'startMultiPartExport',
    method: 'POST',
    path: '/exports/multi-part',
    summary: "Export a version into the parts of the caller's multipart upload",
    description:
      'parts_urls are pre-signed UploadPart URLs of parts 1..n, in order. The output is one file cut into exactly n parts, every part but the last at least 5 MiB (a job error 10-1400 on parts_urls when the export is too small for n parts). Complete the upload with the ETags of GET /exports/multi-part/{job_id}. Send an Idempotency-Key header to make retries safe.',
    tag,
    handler: 'exports/start-multi-part',
    permission: 'data:write',
    request: { body: MultiPartExportRequest, idempotent: true },
    response: { status: 202, description: 'Export started', body: ExportJobStarted },
    errors: [...SOURCE_ERRORS, '10-409', '10-1008', '30-1130'],
    access: { table: 'write', dataKey: ['encrypt'], startsJobs: [multiPartExportJob] },
  }),
  getMultiPart: defineRoute({
    operationId: 'getMultiPartExport',
    method: 'GET',
    path: '/exports/multi-part/{job_id}',
    summary: 'Status of a multi-part export, with the ETag of every part',
    tag,
    handler: 'exports/get-multi-part',
    permission: 'data:read',
    request: { params: JobIdParams },
    response: { status: 200, description: 'The job status; result lists {e_tag, part_number} once COMPLETED', body: MultiPartExportStatus },
    errors: ['10-404'],
    access: { table: 'write' },
  }),
};
