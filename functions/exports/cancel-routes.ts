import { directExportJob, multiPartExportJob, targetExportJob } from '../../shared/exports/jobs';
import { defineRoute } from '../../shared/http/route';
import {
  DirectExportStatus,
  ExportIdParams,
  ExportResponse,
  JobIdParams,
  MultiPartExportStatus,
} from '../../shared/model/export';
import { CANCEL_DESCRIPTION } from '../data-tables/cancel-routes';

const tag = 'exports';

/** Cancelling the three kinds of export (shared/jobs/cancel.ts). */
export const exportCancelRoutes = {
  cancel: defineRoute({
    operationId: 'cancelExport',
    method: 'POST',
    path: '/exports/{export_id}/cancel',
    summary: 'Cancel an export to a target',
    description: `${CANCEL_DESCRIPTION} Its target is released at once. The target's writer makes data visible only once it is whole, so nothing of the export appears at the target.`,
    tag,
    handler: 'exports/cancel',
    permission: 'data:write',
    request: { params: ExportIdParams },
    response: { status: 200, description: 'The export, its job ABORTED', body: ExportResponse },
    errors: ['90-1001', '10-404'],
    access: { table: 'write', stopsJobs: [targetExportJob] },
  }),
  cancelDirect: defineRoute({
    operationId: 'cancelDirectExport',
    method: 'POST',
    path: '/exports/direct/{job_id}/cancel',
    summary: 'Cancel a direct export',
    description: `${CANCEL_DESCRIPTION} Its credentials are deleted at once; no object appears under its keys unless all of them were written before the cancel.`,
    tag,
    handler: 'exports/cancel-direct',
    permission: 'data:write',
    request: { params: JobIdParams },
    response: { status: 200, description: 'The job status, ABORTED', body: DirectExportStatus },
    errors: ['90-1001', '10-404'],
    access: { table: 'write', stopsJobs: [directExportJob] },
  }),
  cancelMultiPart: defineRoute({
    operationId: 'cancelMultiPartExport',
    method: 'POST',
    path: '/exports/multi-part/{job_id}/cancel',
    summary: 'Cancel a multi-part export',
    description: `${CANCEL_DESCRIPTION} Its part URLs are deleted at once and no ETags are recorded: abort the multipart upload at the store.`,
    tag,
    handler: 'exports/cancel-multi-part',
    permission: 'data:write',
    request: { params: JobIdParams },
    response: { status: 200, description: 'The job status, ABORTED', body: MultiPartExportStatus },
    errors: ['90-1001', '10-404'],
    access: { table: 'write', stopsJobs: [multiPartExportJob] },
  }),
};
